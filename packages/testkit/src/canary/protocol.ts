// Codex's protocol, pinned against newest: `codex app-server generate-ts` (through the repository's own
// generate script, so the newest output is exactly what would be checked in) and `generate-json-schema`,
// each run hermetically, then compared file by file, plus the method names of the client requests, server
// notifications and server requests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { HarnessBinary } from '../hermetic/binaries.js';
import type { ProtocolDiff } from './report.js';

/** Every file under a folder, relative, sorted. */
export function listFiles(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(root, path));
    else out.push(relative(root, path));
  }
  return out;
}

/** Added, removed and changed files between two folders (VERSION, which names the version, left out). */
export function diffFolders(pinned: string, newest: string): ProtocolDiff['generateTs'] {
  const before = new Set(listFiles(pinned).filter((file) => file !== 'VERSION'));
  const after = listFiles(newest).filter((file) => file !== 'VERSION');
  const changed = after.filter(
    (file) => before.has(file) && !readFileSync(join(pinned, file)).equals(readFileSync(join(newest, file))),
  );
  return {
    files: after.length,
    added: after.filter((file) => !before.has(file)),
    removed: [...before].filter((file) => !after.includes(file)),
    changed,
  };
}

/** The `"method": "..."` names of a generated union (ClientRequest.ts, ServerNotification.ts, ...). */
export function methodNames(text: string): string[] {
  return [...text.matchAll(/"method":\s*"([^"]+)"/g)].map((match) => match[1] as string).sort();
}

function methodDiff(pinned: string, newest: string, file: string) {
  const read = (dir: string) => methodNames(readFileSync(join(dir, file), 'utf8'));
  const before = read(pinned);
  const after = read(newest);
  return { added: after.filter((m) => !before.includes(m)), removed: before.filter((m) => !after.includes(m)) };
}

interface GenerateOptions {
  repo: string;
  scratch: string;
}

/** generate-ts through scripts/generate-codex-wire.mjs (it enters the namespace itself). */
export function generateWire(binary: HarnessBinary, out: string, options: GenerateOptions): void {
  execFileSync(
    process.execPath,
    [
      join(options.repo, 'packages/harnesses/scripts/generate-codex-wire.mjs'),
      '--out',
      out,
      '--binary',
      binary.command,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
  );
}

/** generate-json-schema, hermetically, with a temp CODEX_HOME and an environment built from empty. */
export function generateJsonSchema(binary: HarnessBinary, out: string, options: GenerateOptions): void {
  const home = join(options.scratch, `codex-home-${binary.version}`);
  mkdirSync(home, { recursive: true });
  const env = { PATH: '/usr/bin:/bin', HOME: home, CODEX_HOME: home, TMPDIR: options.scratch, LANG: 'C.UTF-8' };
  execFileSync(
    process.execPath,
    [
      join(options.repo, 'packages/testkit/bin/hermetic.mjs'),
      '--',
      binary.command,
      'app-server',
      'generate-json-schema',
      '--out',
      out,
    ],
    { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
  );
}

export function codexProtocolDiff(
  pinned: HarnessBinary,
  newest: HarnessBinary,
  options: GenerateOptions,
): { diff: ProtocolDiff; newestWire: string } {
  const dirs = {
    pinnedTs: join(options.scratch, 'wire-pinned'),
    newestTs: join(options.scratch, 'wire-newest'),
    pinnedSchema: join(options.scratch, 'schema-pinned'),
    newestSchema: join(options.scratch, 'schema-newest'),
  };
  generateWire(pinned, dirs.pinnedTs, options);
  generateWire(newest, dirs.newestTs, options);
  generateJsonSchema(pinned, dirs.pinnedSchema, options);
  generateJsonSchema(newest, dirs.newestSchema, options);
  return {
    diff: {
      pinned: pinned.version,
      newest: newest.version,
      generateTs: diffFolders(dirs.pinnedTs, dirs.newestTs),
      jsonSchema: diffFolders(dirs.pinnedSchema, dirs.newestSchema),
      methods: {
        clientRequests: methodDiff(dirs.pinnedTs, dirs.newestTs, 'ClientRequest.ts'),
        serverNotifications: methodDiff(dirs.pinnedTs, dirs.newestTs, 'ServerNotification.ts'),
        serverRequests: methodDiff(dirs.pinnedTs, dirs.newestTs, 'ServerRequest.ts'),
      },
    },
    newestWire: dirs.newestTs,
  };
}
