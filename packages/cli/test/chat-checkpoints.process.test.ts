// `reins chat` /diff and /undo: a Codex turn whose shell tool edits files (the fake app-server behind
// fixtures/shell-tool-codex.mjs) is announced after its checkpoint, /diff prints the measured diff, and
// /undo puts the bytes back and takes the Codex thread back (thread/revert).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestRepo, type TestRepo } from '../../harnesses/src/runtime/checkpoints/test-repo.js';
import { startCli } from './cli.js';

const SHELL_TOOL_CODEX = fileURLToPath(new URL('./fixtures/shell-tool-codex.mjs', import.meta.url));
const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);

let home: string;
let repo: TestRepo | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-chat-checkpoints-'));
});

afterEach(async () => {
  repo?.remove();
  repo = undefined;
  await rm(home, { recursive: true, force: true });
});

describe('reins chat checkpoints', () => {
  it('/diff shows what the turn changed on disk; /undo restores the bytes and the thread', async () => {
    repo = makeTestRepo();
    const original = repo.read('a.txt');
    const revertLog = join(home, 'revert.log');
    const cli = startCli(['chat', '-H', 'codex', '-C', repo.dir], {
      env: {
        PATH: process.env.PATH,
        REINS_HOME: join(home, 'reins'),
        HOME: home,
        REINS_CODEX_BIN: SHELL_TOOL_CODEX,
        FAKE_CODEX_TRANSCRIPT: TRANSCRIPT,
        FAKE_SHELL_CWD: repo.dir,
        FAKE_SHELL_EDIT: 'printf "by the tool\\n" >> a.txt && echo made > made.txt',
        FAKE_REVERT_LOG: revertLog,
      },
    });
    await cli.waitForOutput('/quit to leave', 30_000);
    cli.child.stdin?.write('Say hello.\n');
    await cli.waitForOutput('2 files changed (/diff to see, /undo to put back)', 30_000);
    cli.child.stdin?.write('/diff\n');
    // /diff prints each file in its own write: wait for every part, not only the first.
    await cli.waitForOutput('+by the tool', 15_000);
    await cli.waitForOutput(/modified a\.txt/, 15_000);
    await cli.waitForOutput(/added made\.txt/, 15_000);
    cli.child.stdin?.write('/undo\n');
    await cli.waitForOutput(/undid turn_1: a\.txt, made\.txt restored; conversation reverted/, 15_000);
    expect(repo.read('a.txt')).toBe(original);
    expect(() => repo?.read('made.txt')).toThrow(/ENOENT/);
    expect((await readFile(revertLog, 'utf8')).trim().split('\n')).toHaveLength(1);
    cli.child.stdin?.write('/undo\n');
    await cli.waitForOutput('nothing to undo', 15_000);
    cli.child.stdin?.end();
    expect((await cli.done).code).toBe(0);
  });
});
