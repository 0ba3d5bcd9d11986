// A throwaway git repository for checkpoint tests, and the plumbing reads that prove Reins left the
// user's branch, index and stash alone.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestRepo {
  dir: string;
  write(file: string, text: string): void;
  read(file: string): string;
  git(...args: string[]): string;
  /** What a user would notice changing: HEAD, branches, stash, the index bytes, and `git status`. */
  userState(): { head: string; branches: string; stash: string; index: string; status: string };
  remove(): void;
}

export function makeTestRepo(): TestRepo {
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-ckpt-test-'));
  // GIT_OPTIONAL_LOCKS=0: `git status` here must not refresh the index itself, or the bytes test proves nothing.
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_CONFIG_NOSYSTEM: '1', HOME: dir };
  for (const key of Object.keys(env))
    if (key.startsWith('GIT_') && key !== 'GIT_OPTIONAL_LOCKS' && key !== 'GIT_CONFIG_NOSYSTEM') delete env[key];
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@localhost', ...args], {
      cwd: dir,
      env,
    }).toString();
  const repo: TestRepo = {
    dir,
    write: (file, text) => writeFileSync(path.join(dir, file), text),
    read: (file) => readFileSync(path.join(dir, file), 'utf8'),
    git,
    userState: () => ({
      head: git('rev-parse', 'HEAD'),
      branches: git('for-each-ref', 'refs/heads', 'refs/tags'),
      stash: git('stash', 'list'),
      index: readFileSync(path.join(dir, '.git', 'index')).toString('base64'),
      status: git('status', '--porcelain=v1', '--untracked-files=all'),
    }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  git('init', '-q', '-b', 'main');
  repo.write('.gitignore', 'ignored.log\n');
  repo.write('a.txt', 'alpha\n');
  repo.write('b.txt', 'bravo\n');
  repo.write('c.txt', 'charlie line one\ncharlie line two\ncharlie line three\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  // A stash and a staged change of the user's, which Reins must leave exactly as they are.
  repo.write('a.txt', 'alpha stashed\n');
  git('stash', '-q');
  repo.write('staged.txt', 'staged by the user\n');
  git('add', 'staged.txt');
  return repo;
}
