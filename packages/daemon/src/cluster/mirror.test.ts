// A gateway's mirror of one session against an in-memory stream: events hand on strictly in seq
// order (copies dropped, early ones held while the missing ones are read back), replay from the
// tail or the stream, the state from the newer of the record and the log; a feed message's events
// reach every subscription as one run.
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from './event-stream.js';
import { type MirrorHost, SessionMirror } from './mirror.js';
import { type ClusterSessionRecord, decodeMember, decodeRecord, encodeJson } from './records.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function stored(seq: number, type = 'notice', extra: Record<string, unknown> = {}): StoredEvent {
  return {
    seq,
    streamSeq: seq * 10,
    writer: 'w',
    json: JSON.stringify({ type, seq, sessionId: 's1', harness: 'codex', turnId: null, at: seq, ...extra }),
  };
}

function rig(stream: StoredEvent[]) {
  const changes: string[] = [];
  const host: MirrorHost = {
    log: silent,
    route: async () => ({}),
    readStored: async (_id, afterSeq, limit) => stream.filter((event) => event.seq > afterSeq).slice(0, limit),
    newestStored: async () => stream.at(-1),
    changed: (_id, change) => changes.push(change),
  };
  return { host, changes };
}

const record = (status: ClusterSessionRecord['status'], statusSeq = 0): ClusterSessionRecord => ({
  session: {
    sessionId: 's1',
    harness: 'codex',
    cwd: '/w',
    spec: { cwd: '/w' },
    state: 'open',
    generation: 0,
    createdAt: 0,
    updatedAt: 0,
  },
  worker: 'w1',
  epoch: 'e1',
  status,
  statusSeq,
});

describe('session mirror', () => {
  it('hands events on in seq order with no copy, reading back the ones that come late', async () => {
    const stream = [1, 2, 3].map((seq) => stored(seq));
    const { host } = rig(stream);
    const mirror = new SessionMirror(host, record('idle'), 1, 16);
    await mirror.ready;
    expect(mirror.lastSeq).toBe(3);
    const seen: number[] = [];
    mirror.addSink(seen, (run) => seen.push(...run.map((entry) => entry.seq)));
    mirror.offer([stored(2)]); // a copy
    stream.push(stored(4), stored(5), stored(6));
    mirror.offer([stored(6)]); // early: 4 and 5 are read back first
    mirror.offer([stored(4)]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    mirror.offer([stored(5)]);
    mirror.offer([stored(7)]);
    expect(seen).toEqual([4, 5, 6, 7]);
    expect(mirror.lastSeq).toBe(7);
    // Older events from the stream, newer ones from the tail, page by page as a subscription reads them.
    const older = await mirror.readEvents(0, 10);
    const newer = await mirror.readEvents(older.at(-1)?.seq ?? 0, 10);
    expect([...older, ...newer].map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(() => mirror.readEvents(8, 10)).toThrow(/past the newest/);
  });

  it('hands a message of events, and the held ones they free, to every subscription as one run', async () => {
    const stream = [1, 2, 3, 4, 5, 6].map((seq) => stored(seq));
    const mirror = new SessionMirror(rig(stream.slice(0, 1)).host, record('idle'), 1, 16);
    await mirror.ready;
    const runs: number[][] = [];
    const arrays: unknown[] = [];
    for (const owner of [{}, {}]) {
      mirror.addSink(owner, (run) => {
        arrays.push(run);
        runs.push(run.map((entry) => entry.seq));
      });
    }
    mirror.offer([stored(1), stored(2), stored(3)]); // 1 is a copy
    mirror.offer([stored(5)]); // early: held (the stream is read back for 4, which it does not have yet)
    mirror.offer([stored(4), stored(6)]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(runs).toEqual([
      [2, 3],
      [2, 3],
      [4, 5, 6],
      [4, 5, 6],
    ]);
    expect(arrays[0]).toBe(arrays[1]);
    expect(mirror.lastSeq).toBe(6);
  });

  it('brings itself up to a seq a client saw through another gateway', async () => {
    const stream = [stored(1)];
    const mirror = new SessionMirror(rig(stream).host, record('idle'), 1, 16);
    await mirror.ready;
    stream.push(stored(2), stored(3));
    await mirror.reach(3);
    expect(mirror.lastSeq).toBe(3);
  });

  it('shows the newer of the record and the log: a session.status after the record wins', async () => {
    const { host, changes } = rig([]);
    const mirror = new SessionMirror(host, record('running', 0), 1, 16);
    await mirror.ready;
    mirror.offer([stored(1, 'session.status', { status: 'idle' })]);
    expect(mirror.status).toBe('idle');
    expect(changes).toEqual(['updated']);
    expect(mirror.updateRecord(record('dormant', 2), 2)).toBe('updated');
    expect(mirror.status).toBe('dormant');
    expect(mirror.updateRecord(record('running', 0), 1)).toBeUndefined(); // an older revision
    expect(mirror.updateRecord({ ...record('lost', 2), lostAt: 1 }, 3)).toBe('updated');
    expect(mirror.listing()).toMatchObject({ status: 'lost', worker: 'w1', lastSeq: 1 });
  });
});

describe('records read back from NATS', () => {
  it('are checked: anything else is skipped, never acted on', () => {
    expect(decodeRecord(encodeJson(record('idle')))).toEqual(record('idle'));
    expect(decodeRecord(new TextEncoder().encode('not json'))).toBeUndefined();
    expect(decodeRecord(encodeJson({ ...record('idle'), status: 'exploded' }))).toBeUndefined();
    expect(decodeRecord(encodeJson({ ...record('idle'), worker: 'a.b' }))).toBeUndefined();
    expect(decodeMember(encodeJson({ role: 'worker', id: 'w1' }))).toBeUndefined();
  });
});
