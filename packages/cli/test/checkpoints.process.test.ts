// Checkpoints through a real `reins daemon` subprocess: a Codex turn whose shell tool edits files (the
// fake app-server behind fixtures/shell-tool-codex.mjs) gets a checkpoint event with the measured
// diff; session/diff and session/revert over the wire put the files back byte for byte and take the
// Codex thread back (thread/revert before that turn), leaving the user's HEAD, index and stash alone.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, DaemonInfoSchema, type ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { makeTestRepo, type TestRepo } from '../../harnesses/src/runtime/checkpoints/test-repo.js';
import { type RunningCli, startCli } from './cli.js';

const SHELL_TOOL_CODEX = fileURLToPath(new URL('./fixtures/shell-tool-codex.mjs', import.meta.url));
const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);

let home: string;
let repo: TestRepo | undefined;
let running: RunningCli | undefined;
let reins: ReinsClient | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-cli-checkpoints-'));
});

afterEach(async () => {
  reins?.close();
  if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
  running = undefined;
  repo?.remove();
  await rm(home, { recursive: true, force: true });
});

async function nextMatching(
  events: AsyncIterator<ReinsEvent>,
  seen: ReinsEvent[],
  done: (event: ReinsEvent) => boolean,
): Promise<ReinsEvent> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = await Promise.race([
      events.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no matching event; saw ${seen.map((e) => e.type).join(', ')}`)),
          Math.max(0, deadline - Date.now()),
        );
      }),
    ]);
    clearTimeout(timer);
    if (next.done) throw new Error(`events ended; saw ${seen.map((e) => e.type).join(', ')}`);
    seen.push(next.value);
    if (done(next.value)) return next.value;
  }
}

describe('checkpoints through reins daemon', () => {
  it("a shell tool's edit shows in the turn's checkpoint; revert puts the bytes and the thread back", async () => {
    repo = makeTestRepo();
    const revertLog = join(home, 'revert.log');
    running = startCli(['daemon'], { env: { ...process.env, REINS_HOME: join(home, 'reins') } });
    await running.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
    const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'reins', 'daemon.json'), 'utf8')));
    reins = await connect({ url: info.url, token: info.token, WebSocket, requestTimeoutMs: 20_000 });
    const before = { a: repo.read('a.txt'), user: repo.userState() };

    const session = await reins.createSession(
      'codex',
      { cwd: repo.dir, checkpoints: true },
      {
        binaryPath: SHELL_TOOL_CODEX,
        baseEnv: {
          PATH: process.env.PATH ?? '',
          FAKE_CODEX_TRANSCRIPT: TRANSCRIPT,
          FAKE_SHELL_CWD: repo.dir,
          FAKE_SHELL_EDIT: 'printf "by the tool\\n" >> a.txt && echo made > made.txt',
          FAKE_REVERT_LOG: revertLog,
        },
      },
    );
    const events = session.events[Symbol.asyncIterator]();
    const seen: ReinsEvent[] = [];
    const { turnId } = await session.send('Say hello.');
    const checkpoint = await nextMatching(events, seen, (event) => event.type === 'checkpoint');
    if (checkpoint.type !== 'checkpoint') throw new Error('not a checkpoint');
    expect(checkpoint.turnId).toBe(turnId);
    const completedAt = seen.findIndex((event) => event.type === 'turn.completed');
    expect(completedAt).toBeGreaterThan(-1);
    expect(seen.indexOf(checkpoint)).toBeGreaterThan(completedAt);
    expect(checkpoint.changes.map((change) => [change.path, change.kind])).toEqual([
      ['a.txt', 'modified'],
      ['made.txt', 'added'],
    ]);
    expect(checkpoint.changes[0]?.diff).toContain('+by the tool');

    const diff = await session.diff(turnId);
    expect(diff).toMatchObject({ turnId, changes: checkpoint.changes });

    // Someone else edits a file the turn touched: refused with a sentence, nothing changes.
    repo.write('made.txt', 'the user kept working\n');
    await expect(session.revert(turnId)).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/made\.txt.*force: true/),
    });
    expect(repo.read('made.txt')).toBe('the user kept working\n');
    await expect(readFile(revertLog, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });

    const result = await session.revert(turnId, { force: true });
    expect(result).toEqual({ turnId, files: ['a.txt', 'made.txt'], conversation: 'reverted' });
    expect(repo.read('a.txt')).toBe(before.a);
    expect(() => repo?.read('made.txt')).toThrow(/ENOENT/);
    const reverts = (await readFile(revertLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(reverts).toEqual([{ threadId: session.nativeSessionId, beforeTurnId: expect.any(String) }]);
    expect(reverts[0].beforeTurnId).not.toBe('');
    const after = repo.userState();
    expect({ head: after.head, index: after.index, stash: after.stash, branches: after.branches }).toEqual({
      head: before.user.head,
      index: before.user.index,
      stash: before.user.stash,
      branches: before.user.branches,
    });
    await session.close();
  });
});
