// Checkpoints after a restart (a new process reads the refs its events name) and ref pruning, on temp repos.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { PayloadOf, ReinsEvent } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointHistory, checkpointEntries } from './history.js';
import { makeTestRepo, type TestRepo } from './test-repo.js';
import { TurnCheckpoints } from './turn-checkpoints.js';

/** A session's checkpoints whose events land in `log`, as a store would keep them. */
function session(cwd: string, sessionId: string, log: ReinsEvent[], keepTurns?: number) {
  return new TurnCheckpoints({
    harness: 'codex',
    sessionId,
    cwd,
    ...(keepTurns !== undefined ? { keepTurns } : {}),
    emit: (payload, turnId) => {
      if (payload.type !== 'checkpoint') return;
      log.push({
        ...(payload as PayloadOf<'checkpoint'>),
        turnId: turnId as string,
        sessionId,
        seq: log.length,
        at: 0,
      } as ReinsEvent);
    },
  });
}

async function shellTurn(checkpoints: TurnCheckpoints, turnId: string, cwd: string, script: string): Promise<void> {
  await checkpoints.beforeTurn(turnId);
  execFileSync('sh', ['-c', script], { cwd });
  checkpoints.afterTurn(turnId);
  await checkpoints.settled();
}

function reinsRefs(target: TestRepo): string[] {
  return target.git('for-each-ref', '--format=%(refname)', 'refs/reins').split('\n').filter(Boolean);
}

let repo: TestRepo | undefined;
afterEach(() => {
  repo?.remove();
  repo = undefined;
});

describe('checkpoints after a restart', () => {
  it('a later process diffs and reverts turns of two earlier processes from their events and refs', async () => {
    repo = makeTestRepo();
    const log: ReinsEvent[] = [];
    const first = session(repo.dir, 'cc_first', log);
    await shellTurn(first, 'turn_1', repo.dir, 'echo one >> a.txt');
    // The process ends; the resumed session is a new object with a new id, and turn ids start again.
    const second = session(repo.dir, 'cc_second', log);
    await shellTurn(second, 'turn_1', repo.dir, 'echo two > new.txt && rm b.txt');
    const events = log.map((event, index) => ({ ...event, turnId: `r${index}.${event.turnId}` }) as ReinsEvent);
    const history = new CheckpointHistory({ harness: 'codex', cwd: repo.dir, entries: checkpointEntries(events) });
    expect(await history.turns()).toEqual(['r0.turn_1', 'r1.turn_1']);
    expect((await history.diff('r0.turn_1')).changes.map((change) => change.path)).toEqual(['a.txt']);
    const whole = await history.diff();
    expect(whole.changes.map((change) => `${change.kind} ${change.path}`)).toEqual([
      'modified a.txt',
      'deleted b.txt',
      'added new.txt',
    ]);
    const start = repo.userState();
    const result = await history.revert('r0.turn_1');
    expect(result).toEqual({ turnId: 'r0.turn_1', files: ['a.txt', 'b.txt', 'new.txt'], conversation: 'unchanged' });
    expect([repo.read('a.txt'), repo.read('b.txt'), existsSync(path.join(repo.dir, 'new.txt'))]).toEqual([
      'alpha\n',
      'bravo\n',
      false,
    ]);
    const end = repo.userState();
    expect([end.head, end.index, end.stash, end.branches]).toEqual([
      start.head,
      start.index,
      start.stash,
      start.branches,
    ]);
    expect(reinsRefs(repo)).toEqual([]);
  });

  it('a turn whose refs are gone is refused with checkpoint_gone, and the other turns still work', async () => {
    repo = makeTestRepo();
    const log: ReinsEvent[] = [];
    const live = session(repo.dir, 'cc_one', log);
    await shellTurn(live, 'turn_1', repo.dir, 'echo one >> a.txt');
    await shellTurn(live, 'turn_2', repo.dir, 'echo two >> b.txt');
    repo.git('update-ref', '-d', 'refs/reins/cc_one/turn_1/before'); // someone pruned it by hand
    const history = new CheckpointHistory({ harness: 'codex', cwd: repo.dir, entries: checkpointEntries(log) });
    for (const call of [() => history.diff('turn_1'), () => history.revert('turn_1')]) {
      await expect(call()).rejects.toMatchObject({
        code: 'invalid_input',
        data: { reason: 'checkpoint_gone', turnId: 'turn_1' },
      });
    }
    await expect(history.diff('turn_1')).rejects.toThrow(/refs\/reins\/cc_one\/turn_1\/before, \/after\) are gone/);
    await expect(history.revert('turn_7')).rejects.toMatchObject({ data: { reason: 'no_checkpoint' } });
    expect(repo.read('a.txt')).toBe('alpha\none\n');
    expect((await history.diff('turn_2')).changes.map((change) => change.path)).toEqual(['b.txt']);
    // The live session sees it too: the refs are the truth.
    await expect(live.diff('turn_1')).rejects.toMatchObject({ data: { reason: 'checkpoint_gone' } });
    await expect(live.diff('turn_1')).rejects.toThrow(/refs\/reins\/cc_one\/turn_1\/before, \/after\) are gone/);
  });

  it('refuses over a change made since the newest checkpoint, unless forced', async () => {
    repo = makeTestRepo();
    const log: ReinsEvent[] = [];
    await shellTurn(session(repo.dir, 'cc_one', log), 'turn_1', repo.dir, 'echo agent > a.txt');
    repo.write('a.txt', 'user\n');
    const history = new CheckpointHistory({ harness: 'codex', cwd: repo.dir, entries: checkpointEntries(log) });
    await expect(history.revert('turn_1')).rejects.toMatchObject({
      data: { reason: 'changed_since', paths: ['a.txt'] },
    });
    expect(repo.read('a.txt')).toBe('user\n');
    expect((await history.revert('turn_1', { force: true })).files).toEqual(['a.txt']);
    expect(repo.read('a.txt')).toBe('alpha\n');
  });
});

describe('checkpoint refs are bounded and deleted with their session', () => {
  it('a session keeps the refs of its newest keepTurns turns; older ones are pruned', async () => {
    repo = makeTestRepo();
    const log: ReinsEvent[] = [];
    const checkpoints = session(repo.dir, 'cc_long', log, 2);
    for (const n of [1, 2, 3, 4]) await shellTurn(checkpoints, `turn_${n}`, repo.dir, `echo ${n} >> a.txt`);
    expect(reinsRefs(repo)).toEqual([
      'refs/reins/cc_long/turn_3/after',
      'refs/reins/cc_long/turn_3/before',
      'refs/reins/cc_long/turn_4/after',
      'refs/reins/cc_long/turn_4/before',
    ]);
    await expect(checkpoints.diff('turn_2')).rejects.toMatchObject({ data: { reason: 'checkpoint_gone' } });
    await expect(checkpoints.diff('turn_2')).rejects.toThrow(/newest 2 turns' refs/);
    expect((await checkpoints.diff()).changes[0]?.diff).toMatch(/^ 2\n\+3\n\+4$/m);
  });

  it("forget deletes every ref of the session's processes and leaves other sessions' refs", async () => {
    repo = makeTestRepo();
    const log: ReinsEvent[] = [];
    await shellTurn(session(repo.dir, 'cc_a1', log), 'turn_1', repo.dir, 'echo 1 >> a.txt');
    await shellTurn(session(repo.dir, 'cc_a2', log), 'turn_1', repo.dir, 'echo 2 >> a.txt');
    const other: ReinsEvent[] = [];
    await shellTurn(session(repo.dir, 'cc_other', other), 'turn_1', repo.dir, 'echo 3 >> a.txt');
    const start = repo.userState();
    await new CheckpointHistory({ harness: 'codex', cwd: repo.dir, entries: checkpointEntries(log) }).forget();
    expect(reinsRefs(repo)).toEqual(['refs/reins/cc_other/turn_1/after', 'refs/reins/cc_other/turn_1/before']);
    expect(repo.userState()).toEqual(start);
  });
});
