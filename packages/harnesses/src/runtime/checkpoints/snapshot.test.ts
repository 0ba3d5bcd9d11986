import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointRef } from './refs.js';
import { findWorkTree, mayBeInWorkTree } from './snapshot.js';
import { makeTestRepo, type TestRepo } from './test-repo.js';
import { TurnCheckpoints } from './turn-checkpoints.js';

// A `git` first on PATH that notes each run, then runs the real one: which lookups cost a git process.
let scratch: string;
let gitRuns: string;
/** While this file exists, the recording git takes a second over `commit-tree`. */
let slowCommits: string;
let pathBefore: string | undefined;
let repo: TestRepo | undefined;

beforeEach(() => {
  scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'reins-worktree-')));
  const bin = path.join(scratch, 'bin');
  mkdirSync(bin);
  gitRuns = path.join(scratch, 'git-runs.log');
  writeFileSync(gitRuns, '');
  const realGit = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
  slowCommits = path.join(scratch, 'slow-commits');
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\necho "$*" >> '${gitRuns}'\ncase "$*" in *commit-tree*) [ -f '${slowCommits}' ] && sleep 1;; esac\nexec '${realGit}' "$@"\n`,
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  pathBefore = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${pathBefore ?? ''}`;
});

afterEach(() => {
  process.env.PATH = pathBefore;
  repo?.remove();
  repo = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

const runs = () => readFileSync(gitRuns, 'utf8').split('\n').filter(Boolean);

describe('findWorkTree', () => {
  it('answers for a folder with no .git above it without running git', async () => {
    const plain = path.join(scratch, 'plain', 'deeper');
    mkdirSync(plain, { recursive: true });
    expect(await mayBeInWorkTree(plain)).toBe(false);
    expect(await findWorkTree(plain)).toBeUndefined();
    expect(runs()).toEqual([]);
  });

  it('finds the work tree of a subfolder, of a symlink into it, and of a linked work tree whose .git is a file', async () => {
    repo = makeTestRepo();
    const top = realpathSync(repo.dir);
    const sub = path.join(repo.dir, 'sub');
    mkdirSync(sub);
    expect(await findWorkTree(sub)).toMatchObject({ top });

    const link = path.join(scratch, 'link-into-repo');
    symlinkSync(sub, link);
    expect(await mayBeInWorkTree(link)).toBe(true);
    expect(await findWorkTree(link)).toMatchObject({ top });

    const linked = path.join(scratch, 'linked');
    repo.git('worktree', 'add', '-q', linked);
    expect(await findWorkTree(linked)).toMatchObject({ top: linked });
    expect(runs().length).toBeGreaterThan(0);
  });

  it('sees a folder that became a repository since it was last asked (nothing is remembered)', async () => {
    const later = path.join(scratch, 'later');
    mkdirSync(later);
    expect(await findWorkTree(later)).toBeUndefined();
    execFileSync('git', ['init', '-q'], { cwd: later });
    expect(await findWorkTree(later)).toMatchObject({ top: later });
  });

  it('asks git when the folder cannot be resolved', async () => {
    expect(await mayBeInWorkTree(path.join(scratch, 'missing'))).toBe(true);
    expect(await findWorkTree(path.join(scratch, 'missing'))).toBeUndefined();
  });
});

describe('TurnCheckpoints.beforeTurn', () => {
  it("lets the turn go once the work tree's state is written; its commit and ref follow before anything later", async () => {
    repo = makeTestRepo();
    const checkpoints = new TurnCheckpoints({ harness: 'codex', sessionId: 'rs_test', cwd: repo.dir, emit: () => {} });
    writeFileSync(slowCommits, '');
    await checkpoints.beforeTurn('turn_1');
    // The turn was let go with the state written and before the ref was (after `commit-tree`, a second here).
    expect(runs().some((run) => run.includes('write-tree'))).toBe(true);
    expect(runs().some((run) => run.includes('update-ref'))).toBe(false);
    const settling = checkpoints.settled();
    // A file the turn changes at once does not get into its "before".
    repo.write('a.txt', 'changed by the turn\n');
    await settling;
    rmSync(slowCommits);
    const before = repo.git('rev-parse', checkpointRef('rs_test', 'turn_1', 'before')).trim();
    expect(repo.git('show', `${before}:a.txt`)).toBe('alpha\n');
    checkpoints.afterTurn('turn_1');
    await checkpoints.settled();
    expect((await checkpoints.diff('turn_1')).changes.map((change) => change.path)).toEqual(['a.txt']);
  }, 20_000);
});
