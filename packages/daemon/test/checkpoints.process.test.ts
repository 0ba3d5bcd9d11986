// Checkpoints across a daemon restart, on the fake Claude Code wrapped to edit a file during a turn and a
// real SQLite store: the restarted daemon diffs and reverts the turns of the first one from their stored
// checkpoint events and refs (no live process needed), says checkpoint_gone for a turn whose refs are
// gone, and deleting the session deletes its refs (`git for-each-ref refs/reins`).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editOnInput } from '../../harnesses/src/runtime/checkpoints/edit-on-input.js';
import { makeTestRepo, type TestRepo } from '../../harnesses/src/runtime/checkpoints/test-repo.js';
import { type Daemon, type DaemonOptions, startDaemon } from '../src/index.js';
import { client, EventReader, FAKE_CLAUDE, fakeClaudeEnv, silent } from './helpers.js';

let home: string;
let repo: TestRepo | undefined;
let daemon: Daemon | undefined;
const clients: ReinsClient[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-daemon-checkpoints-'));
  await mkdir(join(home, 'claude-home'));
});
afterEach(async () => {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  repo?.remove();
  repo = undefined;
  await rm(home, { recursive: true, force: true });
});

async function start(options: DaemonOptions): Promise<ReinsClient> {
  daemon = await startDaemon({ home: join(home, 'reins'), harnesses: ['claude-code'], logger: silent, ...options });
  const reins = await client(daemon.url, daemon.token);
  clients.push(reins);
  return reins;
}

async function stop(): Promise<void> {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close();
  daemon = undefined;
}

const refsOf = (target: TestRepo) =>
  target.git('for-each-ref', '--format=%(refname)', 'refs/reins').split('\n').filter(Boolean);

describe('checkpoints across a daemon restart', () => {
  it("the restarted daemon diffs and reverts the first daemon's turn (dormant, then beside a resumed process's turn)", async () => {
    const target = makeTestRepo();
    repo = target;
    const wrapper = await editOnInput(home, {
      target: FAKE_CLAUDE,
      match: 'Edit a.txt',
      file: join(target.dir, 'a.txt'),
      text: 'edited during the turn\n',
    });
    const options: DaemonOptions = {
      harnessOptions: {
        'claude-code': {
          binaryPath: wrapper.binaryPath,
          baseEnv: { ...fakeClaudeEnv({ home: join(home, 'claude-home') }), ...wrapper.env },
          requestTimeoutMs: 10_000,
        },
      },
    };
    const first = await start(options);
    const session = await first.createSession('claude-code', { cwd: target.dir, checkpoints: true });
    const reader = new EventReader(session.events);
    const { turnId: editTurn } = await session.send('Edit a.txt please');
    const checkpoint = (await reader.waitFor(
      (e) => e.type === 'checkpoint' && e.turnId === editTurn,
      'the checkpoint of the edit',
    )) as Extract<ReinsEvent, { type: 'checkpoint' }>;
    expect(checkpoint.changes.map((change) => `${change.kind} ${change.path}`)).toEqual(['modified a.txt']);
    expect(checkpoint.ref).toMatch(/^refs\/reins\/[\w-]+\/turn_1$/);
    await stop();

    // No live process: the stored event and its refs answer.
    const second = await start(options);
    const [listed] = await second.listSessions();
    expect(listed?.status).toBe('dormant');
    const again = await second.attach(session.id, { afterSeq: listed?.lastSeq ?? 0 });
    const diff = await again.diff(editTurn);
    expect(diff.turnId).toBe(editTurn);
    expect(diff.changes[0]?.diff).toContain('+edited during the turn');
    expect((await again.diff()).changes.map((change) => change.path)).toEqual(['a.txt']);
    expect(liveProcessCount()).toBe(0);

    // A resumed process adds a turn of its own; undoing the first daemon's turn undoes it too.
    const later = new EventReader(again.events);
    const { turnId: quietTurn } = await again.send('Say hi');
    expect(quietTurn).toBe('r1.turn_1');
    await later.waitFor((e) => e.type === 'checkpoint' && e.turnId === quietTurn, 'the resumed turn checkpoint');
    const user = target.userState();
    expect(await again.revert(editTurn)).toEqual({ turnId: editTurn, files: ['a.txt'], conversation: 'unchanged' });
    expect(target.read('a.txt')).toBe('alpha\n');
    const after = target.userState();
    expect([after.head, after.index, after.stash]).toEqual([user.head, user.index, user.stash]);
    expect(refsOf(target)).toEqual([]);
    await expect(again.diff(editTurn)).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'checkpoint_gone', turnId: editTurn },
    });
    // The live process's own turn went with it: its refs are the truth there too.
    await expect(again.diff(quietTurn)).rejects.toMatchObject({ data: { reason: 'checkpoint_gone' } });
  });

  it('deleting a session deletes the checkpoint refs of every process it had', async () => {
    const target = makeTestRepo();
    repo = target;
    const options: DaemonOptions = {
      harnessOptions: {
        'claude-code': {
          binaryPath: FAKE_CLAUDE,
          baseEnv: fakeClaudeEnv({ home: join(home, 'claude-home') }),
          requestTimeoutMs: 10_000,
        },
      },
    };
    const reins = await start(options);
    const kept = await reins.createSession('claude-code', { cwd: target.dir, checkpoints: true });
    const doomed = await reins.createSession('claude-code', { cwd: target.dir, checkpoints: true });
    const refs: string[] = [];
    for (const session of [kept, doomed]) {
      const reader = new EventReader(session.events);
      const { turnId } = await session.send('Say hi');
      const event = await reader.waitFor((e) => e.type === 'checkpoint' && e.turnId === turnId, 'the checkpoint');
      refs.push((event as Extract<ReinsEvent, { type: 'checkpoint' }>).ref as string);
    }
    expect(refsOf(target)).toHaveLength(4);
    await reins.deleteSession(doomed.id);
    expect(refsOf(target)).toEqual([`${refs[0]}/after`, `${refs[0]}/before`]);
  });
});
