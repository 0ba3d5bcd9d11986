// The private /tmp wrapper (real tier: it needs the mount namespace that bin/hermetic.mjs allows): the
// wrapped command sees its own /tmp, yet its working directory stays reachable by path even when that
// lies under /tmp and nobody listed it (OpenClaw spawns its tools with `cwd` set to that path).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempHome, type TempHome } from '../hermetic/temp-home.js';
import { privateTmpDir, privateTmpWrapper } from './private-tmp.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function tempHome(): Promise<TempHome> {
  const home = await makeTempHome('reins-private-tmp-');
  cleanups.push(() => home.cleanup());
  return home;
}

/** A folder under the real /tmp, outside the temp home: what `reins demo` hands a session. */
async function workspaceUnderTmp(): Promise<string> {
  const dir = await mkdtemp('/tmp/reins-private-tmp-ws-');
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const workspace = join(dir, 'workspace');
  await mkdir(workspace);
  await writeFile(join(workspace, 'marker'), 'here\n');
  return workspace;
}

/** Runs `node -e script ...args` through the wrapper in `cwd`; the script prints JSON. */
function inPrivateTmp(home: TempHome, cwd: string, script: string, args: string[]): unknown {
  const [command, ...prefix] = privateTmpWrapper(home);
  const result = spawnSync(command as string, [...prefix, process.execPath, '-e', script, ...args], {
    cwd,
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout);
}

const PROBE = `
const { execFileSync } = require('node:child_process');
const { existsSync, writeFileSync } = require('node:fs');
const [cwd, outsider] = process.argv.slice(1);
// What OpenClaw does: spawn a child with cwd given as a path (ENOENT when the path is hidden).
const listed = execFileSync('ls', [], { cwd, encoding: 'utf8' }).trim();
writeFileSync('/tmp/written-inside', 'x');
console.log(JSON.stringify({ listed, otherFile: existsSync(outsider) }));
`;

describe('privateTmpWrapper', () => {
  it("keeps the command's working directory under /tmp reachable by path, and the rest of /tmp private", async () => {
    const home = await tempHome();
    const workspace = await workspaceUnderTmp();
    // A file in the real /tmp that the command must not see.
    const outsider = join(await mkdtemp('/tmp/reins-private-tmp-other-'), 'secret');
    cleanups.push(() => rm(join(outsider, '..'), { recursive: true, force: true }));
    await writeFile(outsider, 'no\n');
    const seen = inPrivateTmp(home, workspace, PROBE, [workspace, outsider]);
    expect(seen).toEqual({ listed: 'marker', otherFile: false });
    // Its /tmp writes land in the temp home, not in the real /tmp.
    expect(spawnSync('test', ['-f', join(privateTmpDir(home), 'written-inside')]).status).toBe(0);
    expect(spawnSync('test', ['-e', '/tmp/written-inside']).status).not.toBe(0);
  });
});
