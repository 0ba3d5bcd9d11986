import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PayloadOf } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointRef } from './refs.js';
import { findWorkTree, privateGitDir } from './snapshot.js';
import { makeTestRepo, type TestRepo } from './test-repo.js';
import { TurnCheckpoints } from './turn-checkpoints.js';

type Emitted = { payload: PayloadOf<'checkpoint'> | PayloadOf<'notice'>; turnId: string | undefined };

function recorder(cwd: string, options: { anyFolder?: boolean } = {}) {
  const emitted: Emitted[] = [];
  const checkpoints = new TurnCheckpoints({
    harness: 'codex',
    sessionId: 'rs_test',
    cwd,
    ...options,
    emit: (payload, turnId) => emitted.push({ payload, turnId }),
  });
  return { checkpoints, emitted };
}

/** A turn whose edits a shell command makes, as a harness's tool would. */
async function shellTurn(checkpoints: TurnCheckpoints, turnId: string, cwd: string, script: string): Promise<void> {
  await checkpoints.beforeTurn(turnId);
  execFileSync('sh', ['-c', script], { cwd });
  checkpoints.afterTurn(turnId);
  await checkpoints.settled();
}

let repo: TestRepo | undefined;
afterEach(() => {
  repo?.remove();
  repo = undefined;
});

describe('TurnCheckpoints on a git work tree', () => {
  it('measures a shell edit, an untracked file, a deletion and a rename, never an ignored file', async () => {
    repo = makeTestRepo();
    const { checkpoints, emitted } = recorder(repo.dir);
    await shellTurn(
      checkpoints,
      'turn_1',
      repo.dir,
      'echo more >> a.txt && echo new > new.txt && rm b.txt && mv c.txt d.txt && echo noise > ignored.log',
    );
    expect(emitted).toHaveLength(1);
    const { payload, turnId } = emitted[0] as Emitted;
    expect(turnId).toBe('turn_1');
    if (payload.type !== 'checkpoint') throw new Error('expected a checkpoint');
    const byPath = Object.fromEntries(payload.changes.map((change) => [change.path, change]));
    expect(Object.keys(byPath).sort()).toEqual(['a.txt', 'b.txt', 'd.txt', 'new.txt']);
    expect(byPath['a.txt']).toMatchObject({ kind: 'modified' });
    expect(byPath['a.txt']?.diff).toContain('+more');
    expect(byPath['new.txt']).toMatchObject({ kind: 'added' });
    expect(byPath['new.txt']?.diff).toContain('+new');
    expect(byPath['b.txt']).toMatchObject({ kind: 'deleted' });
    expect(byPath['b.txt']?.diff).toContain('-bravo');
    expect(byPath['d.txt']).toMatchObject({ kind: 'renamed', previousPath: 'c.txt' });
    // The checkpoints are commits on Reins' own refs.
    expect(repo.git('for-each-ref', '--format=%(refname)', 'refs/reins').trim().split('\n')).toEqual([
      checkpointRef('rs_test', 'turn_1', 'after'),
      checkpointRef('rs_test', 'turn_1', 'before'),
    ]);
  });

  it("leaves the user's HEAD, branches, stash, index bytes and git status as they were", async () => {
    repo = makeTestRepo();
    const { checkpoints } = recorder(repo.dir);
    const start = repo.userState();
    await checkpoints.beforeTurn('turn_1');
    expect(repo.userState()).toEqual(start);
    execFileSync('sh', ['-c', 'echo edited >> a.txt && echo untracked > u.txt'], { cwd: repo.dir });
    const afterEdits = repo.userState();
    checkpoints.afterTurn('turn_1');
    await checkpoints.settled();
    expect(repo.userState()).toEqual(afterEdits);
    expect(afterEdits.head).toBe(start.head);
    expect(afterEdits.index).toBe(start.index);
    expect(afterEdits.stash).toBe(start.stash);
    expect(afterEdits.stash).toContain('stash@{0}');
  });

  it('reverts the files to their state before the turn, byte for byte, and tells the conversation', async () => {
    repo = makeTestRepo();
    const { checkpoints } = recorder(repo.dir);
    const original = { a: repo.read('a.txt'), b: repo.read('b.txt'), c: repo.read('c.txt') };
    await shellTurn(
      checkpoints,
      'turn_1',
      repo.dir,
      'printf "x\\0y" > a.txt && rm b.txt && mkdir -p sub/dir && echo n > sub/dir/new.txt',
    );
    await shellTurn(checkpoints, 'turn_2', repo.dir, 'mv c.txt moved.txt && echo ignored > ignored.log');
    const start = repo.userState();
    const asked: string[][] = [];
    const result = await checkpoints.revert('turn_1', {}, async (turnIds) => {
      asked.push(turnIds);
      return 'reverted';
    });
    expect(asked).toEqual([['turn_1', 'turn_2']]);
    expect(result).toEqual({
      turnId: 'turn_1',
      files: ['a.txt', 'b.txt', 'c.txt', 'moved.txt', 'sub/dir/new.txt'],
      conversation: 'reverted',
    });
    expect({ a: repo.read('a.txt'), b: repo.read('b.txt'), c: repo.read('c.txt') }).toEqual(original);
    expect(existsSync(path.join(repo.dir, 'moved.txt'))).toBe(false);
    expect(existsSync(path.join(repo.dir, 'sub'))).toBe(false);
    expect(repo.read('ignored.log')).toBe('ignored\n'); // ignored files are not Reins' to touch
    const end = repo.userState();
    expect({ head: end.head, index: end.index, stash: end.stash, branches: end.branches }).toEqual({
      head: start.head,
      index: start.index,
      stash: start.stash,
      branches: start.branches,
    });
    // The reverted turns' checkpoints are gone with them.
    expect(repo.git('for-each-ref', 'refs/reins').trim()).toBe('');
    await expect(checkpoints.diff('turn_2')).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('refuses to revert over a change made since the last checkpoint, unless forced', async () => {
    repo = makeTestRepo();
    const { checkpoints } = recorder(repo.dir);
    await shellTurn(checkpoints, 'turn_1', repo.dir, 'echo by-agent > a.txt && echo by-agent > b.txt');
    repo.write('a.txt', 'by the user afterwards\n');
    let conversationAsked = false;
    const conversation = async () => {
      conversationAsked = true;
      return 'unchanged' as const;
    };
    const refusal = checkpoints.revert('turn_1', {}, conversation);
    await expect(refusal).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'changed_since', paths: ['a.txt'] },
    });
    await expect(refusal).rejects.toThrow(/a\.txt.*force: true/);
    expect(conversationAsked).toBe(false);
    expect(repo.read('a.txt')).toBe('by the user afterwards\n');
    expect(repo.read('b.txt')).toBe('by-agent\n');
    const forced = await checkpoints.revert('turn_1', { force: true }, conversation);
    expect(forced.files).toEqual(['a.txt', 'b.txt']);
    expect(repo.read('a.txt')).toBe('alpha\n');
    expect(repo.read('b.txt')).toBe('bravo\n');
  });

  it('does not let a user change to a file the turn never touched block or suffer the revert', async () => {
    repo = makeTestRepo();
    const { checkpoints } = recorder(repo.dir);
    await shellTurn(checkpoints, 'turn_1', repo.dir, 'echo by-agent > b.txt');
    repo.write('a.txt', 'user work\n');
    const result = await checkpoints.revert('turn_1', {}, async () => 'unchanged');
    expect(result.files).toEqual(['b.txt']);
    expect(repo.read('a.txt')).toBe('user work\n');
  });

  it('diffs one turn or the whole session', async () => {
    repo = makeTestRepo();
    const { checkpoints } = recorder(repo.dir);
    await shellTurn(checkpoints, 'turn_1', repo.dir, 'echo one >> a.txt');
    await shellTurn(checkpoints, 'turn_2', repo.dir, 'echo two >> b.txt');
    expect((await checkpoints.diff('turn_2')).changes.map((change) => change.path)).toEqual(['b.txt']);
    const whole = await checkpoints.diff();
    expect(whole.turnId).toBeUndefined();
    expect(whole.changes.map((change) => change.path)).toEqual(['a.txt', 'b.txt']);
    await expect(checkpoints.diff('turn_9')).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'no_checkpoint' },
    });
  });
});

describe('TurnCheckpoints outside a git work tree', () => {
  it('records nothing, and diff and revert say why with unsupported_capability', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reins-ckpt-plain-'));
    try {
      const { checkpoints, emitted } = recorder(dir);
      await shellTurn(checkpoints, 'turn_1', dir, 'echo x > file.txt');
      expect(emitted).toEqual([]);
      await expect(checkpoints.diff()).rejects.toMatchObject({
        code: 'unsupported_capability',
        data: { reason: 'not_a_work_tree' },
      });
      await expect(checkpoints.revert('turn_1', {}, async () => 'unchanged')).rejects.toThrow(
        /not in one: start the session with checkpoints: true/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asked for (checkpoints: true), keeps them in a private repository under REINS_HOME, writing nothing in the folder', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reins-ckpt-plain-'));
    const home = mkdtempSync(path.join(tmpdir(), 'reins-ckpt-home-'));
    const before = process.env.REINS_HOME;
    process.env.REINS_HOME = home;
    try {
      writeFileSync(path.join(dir, 'keep.txt'), 'original\n');
      const { checkpoints, emitted } = recorder(dir, { anyFolder: true });
      await shellTurn(checkpoints, 'turn_1', dir, 'echo changed > keep.txt && echo new > added.txt');
      const [first] = emitted;
      if (first?.payload.type !== 'checkpoint') throw new Error(`expected a checkpoint, got ${JSON.stringify(first)}`);
      const byPath = Object.fromEntries(first.payload.changes.map((change) => [change.path, change]));
      expect(byPath['keep.txt']).toMatchObject({ kind: 'modified' });
      expect(byPath['keep.txt']?.diff).toContain('+changed');
      expect(byPath['added.txt']).toMatchObject({ kind: 'added' });
      // Nothing of git's inside the folder; the repository is REINS_HOME's.
      expect(readdirSync(dir).sort()).toEqual(['added.txt', 'keep.txt']);
      expect(readdirSync(path.join(home, 'checkpoints'))).toHaveLength(1);

      await checkpoints.revert('turn_1', {}, async () => 'unchanged');
      expect(readFileSync(path.join(dir, 'keep.txt'), 'utf8')).toBe('original\n');
      expect(existsSync(path.join(dir, 'added.txt'))).toBe(false);
      // A later process finds the same private repository (CheckpointHistory, a resumed session).
      expect((await findWorkTree(dir))?.gitDir).toBe(privateGitDir(realpathSync(dir)));
    } finally {
      if (before === undefined) delete process.env.REINS_HOME;
      else process.env.REINS_HOME = before;
      rmSync(dir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a failing snapshot becomes one warning notice and the turn goes on', async () => {
    repo = makeTestRepo();
    const { checkpoints, emitted } = recorder(repo.dir);
    await checkpoints.beforeTurn('turn_1'); // finds the work tree
    renameSync(path.join(repo.dir, '.git'), path.join(repo.dir, 'not-git')); // the repository vanishes mid-session
    checkpoints.afterTurn('turn_1');
    await checkpoints.settled();
    await shellTurn(checkpoints, 'turn_2', repo.dir, 'true');
    expect(emitted.map((entry) => entry.payload.type)).toEqual(['notice']);
    expect(emitted[0]).toMatchObject({
      turnId: undefined,
      payload: { kind: 'warning', data: { reason: 'checkpoint_failed' } },
    });
  });
});
