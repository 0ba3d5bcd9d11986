// A full disk under a real SQLite store: $REINS_HOME on a small tmpfs (mount -t tmpfs; the test
// runs as root), filled while a turn runs. The client sees the store_unavailable error and the
// turn failed live although neither could be stored; session/send is refused with
// store_unavailable and the harness is not asked; once space is freed the next send works with
// no restart, and after a restart the log holds every turn with its one start and one terminal.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import { ReinsError, type ReinsEvent } from '@reins/core';
import { streamViolations } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../src/index.js';
import { client, EventReader, silent } from './helpers.js';
import { ScriptedHarness } from './scripted-harness.js';

const isRoot = process.getuid?.() === 0;
let mountPoint: string;
let daemon: Daemon | undefined;
const clients: ReinsClient[] = [];

beforeEach(() => {
  mountPoint = mkdtempSync(join(tmpdir(), 'reins-full-disk-'));
  // 16 MiB: room for the store and its WAL; the test fills the rest.
  if (isRoot) execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', mountPoint]);
});
afterEach(async () => {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close().catch(() => {});
  daemon = undefined;
  if (isRoot) execFileSync('umount', ['-l', mountPoint]);
  await rm(mountPoint, { recursive: true, force: true });
});

async function start(harness: ScriptedHarness): Promise<Daemon> {
  daemon = await startDaemon({
    home: join(mountPoint, 'home'),
    harnesses: ['codex'],
    logger: silent,
    createHarness: async () => harness,
  });
  const reins = await client(daemon.url, daemon.token);
  clients.push(reins);
  return daemon;
}

/** Writes files until the disk says ENOSPC, in smaller and smaller pieces; returns their paths. */
function fill(dir: string): string[] {
  const files: string[] = [];
  for (const size of [1024 * 1024, 64 * 1024, 4096, 512, 1]) {
    for (;;) {
      const path = join(dir, `fill-${files.length}`);
      try {
        writeFileSync(path, Buffer.alloc(size, 1));
        files.push(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        rmSync(path, { force: true });
        break;
      }
    }
  }
  return files;
}

function refusal(promise: Promise<unknown>): Promise<ReinsError> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      if (!ReinsError.isInstance(error)) throw error;
      return error;
    },
  );
}

describe('a full disk under the store', () => {
  it.skipIf(!isRoot)(
    'says so live, refuses new turns without asking the harness, and recovers without a restart',
    async () => {
      const harness = new ScriptedHarness('codex');
      const first = await start(harness);
      const reins = clients[0] as ReinsClient;
      const session = await reins.createSession('codex', { cwd: mountPoint });
      const reader = new EventReader(session.events);
      const one = await session.send('one');
      await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === one.turnId, 'turn one');

      // Turn two starts (stored), then the disk fills while it runs.
      const scripted = harness.last;
      scripted.hold = true;
      const two = await session.send('two');
      await reader.waitFor(
        (e) => e.type === 'item.completed' && e.item.kind === 'user_message' && e.turnId === two.turnId,
        'turn two started',
      );
      const filler = fill(mountPoint);
      expect(filler.length).toBeGreaterThan(0);
      scripted.release();

      const error = await reader.waitFor((e) => e.type === 'error', 'the store_unavailable error');
      expect(error).toMatchObject({ code: 'store_unavailable', fatal: true, turnId: two.turnId });
      expect((error as { message: string }).message).toMatch(/disk is full.*free space on that disk/);
      const failed = await reader.waitFor(
        (e) => e.type === 'turn.completed' && e.turnId === two.turnId,
        'turn two ended',
      );
      expect(failed).toMatchObject({ outcome: { status: 'failed', error: { code: 'store_unavailable' } } });
      // What the store refused (the answer's deltas) never reached the client.
      expect(reader.events.filter((e) => e.type === 'item.delta' && e.turnId === two.turnId)).toEqual([]);

      // Still full: refused with the code and a sentence, and the harness is not asked.
      const sendsBefore = harness.sessions.reduce((sum, s) => sum + s.sends.length, 0);
      const processesBefore = harness.sessions.length;
      const refused = await refusal(session.send('three'));
      expect(refused.code).toBe('store_unavailable');
      expect(refused.message).toMatch(/cannot record this session.*free space/);
      expect(harness.sessions.reduce((sum, s) => sum + s.sends.length, 0)).toBe(sendsBefore);
      // A new session cannot be recorded either: refused the same way. No harness process was started.
      const notCreated = await refusal(reins.createSession('codex', { cwd: mountPoint }));
      expect(notCreated.code).toBe('store_unavailable');
      expect(harness.sessions).toHaveLength(processesBefore);

      // Space again: the next send works in the same daemon.
      for (const path of filler) rmSync(path);
      const four = await session.send('four');
      await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === four.turnId, 'turn four');
      expect(reader.events.find((e) => e.type === 'turn.completed' && e.turnId === four.turnId)).toMatchObject({
        outcome: { status: 'completed' },
      });

      // A disk that fills while the session is idle: the check before the turn refuses it.
      const refill = fill(mountPoint);
      const sendsIdle = harness.sessions.reduce((sum, s) => sum + s.sends.length, 0);
      expect((await refusal(session.send('five'))).code).toBe('store_unavailable');
      expect(harness.sessions.reduce((sum, s) => sum + s.sends.length, 0)).toBe(sendsIdle);
      await reader.waitFor((e) => e.type === 'error' && e.seq > failed.seq, 'the second store_unavailable error');
      for (const path of refill) rmSync(path);
      const six = await session.send('six');
      await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === six.turnId, 'turn six');
      const lastSeq = (reader.events.at(-1) as ReinsEvent).seq;

      // After a restart the log is whole: no gap, every turn with one start and one terminal.
      for (const open of clients.splice(0)) open.close();
      await first.close();
      daemon = undefined;
      await start(harness);
      const again = clients[0] as ReinsClient;
      const replayed = await again.attach(session.id, { afterSeq: 0 });
      const replay = new EventReader(replayed.events);
      await replay.waitFor((e) => e.seq === lastSeq, `seq ${lastSeq}`);
      await replayed.detach();
      const events = replay.events.filter((e) => e.seq <= lastSeq);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, index) => index + 1));
      expect(streamViolations(events, { settled: true })).toEqual([]);
      const starts = events.filter((e) => e.type === 'turn.started').map((e) => e.turnId);
      const ends = events.filter((e) => e.type === 'turn.completed').map((e) => e.turnId);
      expect(ends).toEqual(starts);
      expect(starts).toEqual([one.turnId, two.turnId, four.turnId, six.turnId]);
      expect(events.filter((e) => e.type === 'error')).toMatchObject([
        { code: 'store_unavailable', turnId: two.turnId },
        { code: 'store_unavailable', turnId: null },
      ]);
    },
    60_000,
  );

  it.skipIf(!isRoot)(
    'refuses a setting and a delete it cannot record, with the session as it was, and takes them once freed',
    async () => {
      const harness = new ScriptedHarness('codex');
      const first = await start(harness);
      const reins = clients[0] as ReinsClient;
      const session = await reins.createSession('codex', { cwd: mountPoint });
      const reader = new EventReader(session.events);
      const one = await session.send('one');
      await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === one.turnId, 'turn one');

      const filler = fill(mountPoint);
      const applied = harness.last.sends.length;
      expect((await refusal(session.setModel('model-b'))).code).toBe('store_unavailable');
      // Nothing changed: still listed, not closed, and the harness was asked nothing.
      const listed = (await reins.listSessions()).find((entry) => entry.sessionId === session.id);
      expect(listed?.status).not.toBe('closed');
      expect(harness.last.sends.length).toBe(applied);

      // Space again: the setting is taken and kept in the stored record (a restart resumes with it).
      for (const path of filler) rmSync(path);
      await session.setModel('model-b');
      const lastSeq = (await reins.listSessions()).find((entry) => entry.sessionId === session.id)?.lastSeq ?? 0;
      for (const open of clients.splice(0)) open.close();
      await first.close();
      daemon = undefined;
      await start(harness);
      const again = clients[0] as ReinsClient;
      const resumed = await again.attach(session.id, { afterSeq: lastSeq });
      const resumedReader = new EventReader(resumed.events);
      const two = await resumed.send('two');
      await resumedReader.waitFor((e) => e.type === 'turn.completed' && e.turnId === two.turnId, 'turn two');
      expect(harness.last.spec.model).toBe('model-b');
      // A delete the store cannot record is refused and the session stays listed; once freed it goes.
      const full = fill(mountPoint);
      expect((await refusal(again.deleteSession(session.id))).code).toBe('store_unavailable');
      expect((await again.listSessions()).map((entry) => entry.sessionId)).toContain(session.id);
      for (const path of full) rmSync(path);
      await again.deleteSession(session.id);
      expect((await again.listSessions()).map((entry) => entry.sessionId)).not.toContain(session.id);
    },
    60_000,
  );

  it.skipIf(!isRoot)('a daemon that cannot start for want of room says so, and starts once freed', async () => {
    const startOn = (home: string) =>
      startDaemon({
        home,
        harnesses: ['codex'],
        logger: silent,
        createHarness: async () => new ScriptedHarness('codex'),
      });
    // A home used before (its store exists; daemon.json is written at each start), and a new one.
    const used = join(mountPoint, 'used');
    await (await startOn(used)).close();
    const filler = fill(mountPoint);
    for (const home of [used, join(mountPoint, 'new')]) {
      const refused = await refusal(startOn(home));
      expect(refused.code).toBe('store_unavailable');
      expect(refused.message).toMatch(/cannot start: the disk holding .* is full\. Free space on that disk/);
    }
    for (const path of filler) rmSync(path);
    daemon = await startOn(used);
    const reins = await client(daemon.url, daemon.token);
    clients.push(reins);
    expect(await reins.listSessions()).toEqual([]);
  });
});
