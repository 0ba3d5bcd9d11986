// The one Node API core uses (structured-output/ajv-node.ts, Node only): core compiles without Node's
// types, since browsers import it too. Not emitted.
declare module 'node:module' {
  export function createRequire(path: string | URL): (id: string) => unknown;
}
