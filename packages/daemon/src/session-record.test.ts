// SessionRecord on a store that refuses writes (a full disk) and takes them again: a change goes
// on in memory without a throw, the refused fields are written at their newest values with the
// next write or catchUp(), and catchUp() says store_unavailable while the store still refuses.
import { describe, expect, it } from 'vitest';
import { SessionRecord } from './session-record.js';
import { MemoryStore } from './store/memory-store.js';
import type { SessionPatch, StoredSession } from './store/store.js';

class FullableStore extends MemoryStore {
  full = false;
  override async updateSession(sessionId: string, patch: SessionPatch): Promise<void> {
    if (this.full) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    return super.updateSession(sessionId, patch);
  }
}

const session: StoredSession = {
  sessionId: 's1',
  harness: 'codex',
  cwd: '/tmp',
  spec: { cwd: '/tmp' },
  state: 'open',
  generation: 0,
  createdAt: 1,
  updatedAt: 1,
};

async function rig() {
  const store = new FullableStore();
  await store.putSession(session);
  const errors: string[] = [];
  const log = {
    debug() {},
    info() {},
    warn() {},
    error: (message: string) => errors.push(message),
  };
  const record = new SessionRecord(structuredClone(session), store, log);
  const stored = async () => (await store.loadSessions())[0] as StoredSession;
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  return { store, record, errors, stored, settled };
}

describe('SessionRecord when the store cannot write', () => {
  it('keeps a refused change in memory and writes it at its newest value once the store writes', async () => {
    const { store, record, errors, stored, settled } = await rig();
    store.full = true;
    record.update({ title: 'first', openTurn: { turnId: 't1', seq: 3 } });
    record.update({ title: 'second' });
    await settled();
    expect(record.current.title).toBe('second');
    expect(record.behind).toBe(true);
    expect(errors).toHaveLength(2);
    expect((await stored()).title).toBeUndefined();
    await expect(record.catchUp()).rejects.toMatchObject({ code: 'store_unavailable', retryable: true });

    // The turn ended meanwhile: the record's newest state is what catches up.
    record.update({ openTurn: null });
    await settled();
    store.full = false;
    await record.catchUp();
    expect(record.behind).toBe(false);
    const after = await stored();
    expect(after.title).toBe('second');
    expect(after.openTurn).toBeUndefined();
  });

  it('writes the refused fields with the next change that the store takes', async () => {
    const { store, record, stored, settled } = await rig();
    store.full = true;
    record.update({ model: 'model-b' });
    await settled();
    store.full = false;
    record.update({ generation: 1 });
    await settled();
    expect(record.behind).toBe(false);
    expect(await stored()).toMatchObject({ model: 'model-b', generation: 1 });
    // Nothing left to write: catchUp does not touch the store.
    store.full = true;
    await record.catchUp();
  });
});
