// ProcessTracker on a store that refuses writes (a full disk) and takes them again: nothing throws,
// and the refused records are written, in order, before the next one and at close.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import type { ProcessGroupRecord } from '../store/store.js';
import { ProcessTracker } from './tracker.js';

class FullableStore extends MemoryStore {
  full = false;
  private refuse(): Promise<void> {
    return Promise.reject(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
  }
  override recordProcessGroup(group: ProcessGroupRecord): Promise<void> {
    return this.full ? this.refuse() : super.recordProcessGroup(group);
  }
  override endProcessGroup(id: string, endedAt: number): Promise<void> {
    return this.full ? this.refuse() : super.endProcessGroup(id, endedAt);
  }
}

const children: number[] = [];
afterEach(() => {
  for (const pid of children.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
});

/** A real process group leader to record (a `sleep` in a group of its own). */
function sleeper(): number {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  child.unref();
  children.push(child.pid as number);
  return child.pid as number;
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('ProcessTracker when the store cannot write', () => {
  it('writes the refused records in order once the store takes writes again', async () => {
    const store = new FullableStore();
    const errors: string[] = [];
    const log = { debug() {}, info() {}, warn() {}, error: (message: string) => errors.push(message) };
    const tracker = new ProcessTracker(store, log);
    try {
      const [first, second, third] = [sleeper(), sleeper(), sleeper()];
      store.full = true;
      tracker.started({ pid: first, label: 'first' }, 's1');
      tracker.started({ pid: second, label: 'second' }, 's1');
      await settled();
      tracker.exited(first);
      await settled();
      expect(errors.length).toBeGreaterThan(0);
      expect(await store.openProcessGroups()).toEqual([]);

      store.full = false;
      tracker.started({ pid: third, label: 'third' }, 's1');
      await settled();
      await settled();
      // The first one started and ended while the disk was full: recorded, then ended.
      expect((await store.openProcessGroups()).map((group) => group.label).sort()).toEqual(['second', 'third']);

      store.full = true;
      tracker.exited(second);
      await settled();
      store.full = false;
    } finally {
      await tracker.close();
    }
    // close wrote what was refused last.
    expect((await store.openProcessGroups()).map((group) => group.label)).toEqual(['third']);
  });
});
