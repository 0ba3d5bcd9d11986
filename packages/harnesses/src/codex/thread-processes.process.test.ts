// A shared app-server's descendants, found the two ways thread-processes.ts reads them (each
// process's `children` files, and the fallback scan of every process), and the process groups one
// thread left behind, ended without touching another thread's or the root's.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../testkit/src/polling/until.js';
import { descendants, descendantsFromScan, endThreadProcesses, threadProcessGroups } from './thread-processes.js';

const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // gone
    }
  }
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A stand-in for an app-server (its own process group): two commands as Codex starts them, each in a
 * group of its own with CODEX_THREAD_ID set (thread-a's with a child of its own), and one of its own
 * group without a thread. Returns the root and the pid of each command's group leader.
 */
async function appServerTree() {
  const script = [
    'CODEX_THREAD_ID=thread-a setsid sh -c "sleep 60 & wait" &',
    'echo a=$!',
    'CODEX_THREAD_ID=thread-b setsid sleep 60 &',
    'echo b=$!',
    'sleep 60 &',
    'echo own=$!',
    'wait',
  ].join('\n');
  const root = spawn('sh', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  running.push(root);
  let out = '';
  root.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  await until(() => out.includes('own='), 'the tree started');
  const pid = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(out)?.[1]);
  const tree = { root: root.pid as number, a: pid('a'), b: pid('b'), own: pid('own') };
  // thread-a's own child (sleep under its sh) exists once the sh has forked it.
  await until(() => descendants(tree.root).length === 4, 'four descendants');
  return tree;
}

describe('thread-processes (Linux /proc)', () => {
  it.skipIf(process.platform !== 'linux')(
    'reads the same descendants from the children files as from a scan',
    async () => {
      const tree = await appServerTree();
      const byPid = (entries: { pid: number }[]) => entries.map((entry) => entry.pid).sort((x, y) => x - y);
      const found = descendants(tree.root);
      expect(byPid(found)).toEqual(byPid(descendantsFromScan(tree.root)));
      expect(byPid(found)).toEqual(expect.arrayContaining([tree.a, tree.b, tree.own]));
      // Parents before children: thread-a's sleep comes after its sh.
      const grandchild = found.find((entry) => entry.ppid === tree.a);
      expect(grandchild).toBeDefined();
      expect(found.findIndex((entry) => entry.pid === tree.a)).toBeLessThan(found.indexOf(grandchild as never));
    },
  );

  it.skipIf(process.platform !== 'linux')("ends one thread's groups only", async () => {
    const tree = await appServerTree();
    expect(threadProcessGroups(tree.root, new Set(['thread-a']))).toEqual([tree.a]);
    expect(threadProcessGroups(tree.root, new Set(['thread-a', 'thread-b'])).sort()).toEqual([tree.a, tree.b].sort());
    expect(threadProcessGroups(tree.root, new Set(['thread-c']))).toEqual([]);
    const grandchild = descendants(tree.root).find((entry) => entry.ppid === tree.a)?.pid as number;
    expect(await endThreadProcesses(tree.root, new Set(['thread-a']))).toBe(1);
    await until(() => !alive(tree.a) && !alive(grandchild), "thread-a's group ended");
    expect([alive(tree.b), alive(tree.own), alive(tree.root)]).toEqual([true, true, true]);
  });
});
