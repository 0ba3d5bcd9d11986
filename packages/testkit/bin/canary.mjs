#!/usr/bin/env node
// `npm run canary` (see packages/testkit/src/canary/main.ts): the newest published harness CLIs against
// the pinned ones. Runs the built testkit (the npm script builds it first).
//
// `--suite` is the inner step the canary starts inside the loopback-only namespace: one conformance pass
// over one install (--root), written as JSON to --out. With --sdk-root, the Claude Agent SDK and the ACP SDK
// the adapters import are resolved from that folder's node_modules (the newest) instead of the workspace's.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const SDK_NAMES = ['@anthropic-ai/claude-agent-sdk', '@agentclientprotocol/sdk'];
const dist = new URL('../dist/canary/', import.meta.url);

async function suite(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      suite: { type: 'boolean' },
      root: { type: 'string' },
      ids: { type: 'string' },
      out: { type: 'string' },
      'sdk-root': { type: 'string' },
    },
    strict: true,
  });
  if (!values.root || !values.ids || !values.out) throw new Error('--suite needs --root, --ids and --out');
  if (values['sdk-root']) {
    // Before anything imports the adapters: their SDK imports resolve as if made from the SDK root.
    const parentURL = pathToFileURL(join(values['sdk-root'], 'package.json')).href;
    register(new URL('./canary-sdk-hooks.mjs', import.meta.url), { data: { names: SDK_NAMES, parentURL } });
  }
  const { runSuite } = await import(new URL('suite-runner.js', dist).href);
  const log = (line) => process.stderr.write(`canary: ${line}\n`);
  const run = await runSuite({ root: values.root, ids: values.ids.split(','), log });
  run.sdks = Object.fromEntries(SDK_NAMES.map((name) => [name, sdkVersion(name)]));
  writeFileSync(values.out, `${JSON.stringify(run, null, 2)}\n`);
}

/** A path under HOME as ~/..., so a committed report names no machine. */
function homeRelative(path) {
  const home = homedir();
  return path.startsWith(`${home}/`) ? `~/${path.slice(home.length + 1)}` : path;
}

/** The version of the SDK this process really loads (after the redirect, if any). */
function sdkVersion(name) {
  const entry = import.meta.resolve(name);
  let dir = new URL('.', entry);
  for (let i = 0; i < 6; i++, dir = new URL('..', dir)) {
    const manifest = new URL('package.json', dir);
    if (!existsSync(manifest)) continue;
    const parsed = JSON.parse(readFileSync(manifest, 'utf8'));
    if (parsed.name === name) return `${parsed.version} (${homeRelative(dir.pathname)})`;
  }
  return `unknown (${entry})`;
}

const argv = process.argv.slice(2);
try {
  if (argv.includes('--suite')) {
    await suite(argv);
  } else {
    const { main } = await import(new URL('main.js', dist).href);
    process.exitCode = await main(argv);
  }
} catch (error) {
  process.stderr.write(`canary: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 2;
}
