// Module resolve hooks for the canary's suite step (bin/canary.mjs --suite --sdk-root DIR): imports of the
// named SDKs (and their subpaths) resolve as if made from DIR/package.json, i.e. from DIR/node_modules, so
// the adapters run on the newest SDK the canary installed. Everything else resolves as usual.
let names = [];
let parentURL = '';

export async function initialize(data) {
  names = data.names;
  parentURL = data.parentURL;
}

export async function resolve(specifier, context, nextResolve) {
  const redirected = names.some((name) => specifier === name || specifier.startsWith(`${name}/`));
  return nextResolve(specifier, redirected ? { ...context, parentURL } : context);
}
