// Protocol version 2 on a real socket (scripted in-process harness): status/snapshot right after
// initialize and then on a timer; sessions/changed seen by every other client (created, updated,
// closed, deleted); session/list with the version 2 fields and the seven states. A version 1
// client (no protocolVersion at initialize) keeps working: version 1 answers (checked against the
// version 1 schemas, strictly), v1 states only, and no version 2 notifications.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HOSTED_SESSION_STATES,
  type ReinsClient,
  SessionListingSchema,
  type SessionsChangedParams,
  type StatusSnapshotParams,
  V1SessionListingSchema,
  V1SubscribeResultSchema,
} from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { until } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Daemon, type DaemonOptions, startDaemon } from '../src/index.js';
import { client, EventReader, RawSocket, silent } from './helpers.js';
import { ScriptedHarness } from './scripted-harness.js';

let home: string;
let daemon: Daemon | undefined;
const clients: ReinsClient[] = [];
const raws: RawSocket[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-protocol-'));
});
afterEach(async () => {
  for (const reins of clients.splice(0)) reins.close();
  for (const raw of raws.splice(0)) raw.close();
  await daemon?.close();
  daemon = undefined;
  await rm(home, { recursive: true, force: true });
});

async function start(harness: ScriptedHarness, options: DaemonOptions = {}): Promise<Daemon> {
  daemon = await startDaemon({
    home,
    harnesses: ['codex'],
    logger: silent,
    createHarness: async () => harness,
    ...options,
  });
  return daemon;
}

async function connected(target: Daemon): Promise<ReinsClient> {
  const reins = await client(target.url, target.token);
  clients.push(reins);
  return reins;
}

describe('version 2', () => {
  it('sends status/snapshot right after initialize and then every interval', async () => {
    const harness = new ScriptedHarness();
    const first = await start(harness, { snapshotIntervalMs: 100 });
    const creator = await connected(first);
    const session = await creator.createSession('codex', { cwd: home });
    const reins = await connected(first);
    const snapshots: StatusSnapshotParams[] = [];
    reins.onStatusSnapshot((snapshot) => snapshots.push(snapshot));
    const initial = await until(() => reins.lastSnapshot, 'the first snapshot');
    expect(initial.sessions).toEqual([
      { sessionId: session.id, status: 'idle', lastSeq: expect.any(Number), updatedAt: expect.any(Number) },
    ]);
    await until(() => (snapshots.length >= 2 ? true : undefined), 'a snapshot from the timer');
    for (const snapshot of snapshots) {
      for (const entry of snapshot.sessions) expect(HOSTED_SESSION_STATES).toContain(entry.status);
    }
  });

  it('tells every client about sessions created, updated, closed and deleted by another', async () => {
    const harness = new ScriptedHarness();
    const target = await start(harness);
    const watcher = await connected(target);
    const changes: SessionsChangedParams[] = [];
    watcher.onSessionsChanged((change) => changes.push(change));
    const actor = await connected(target);
    const session = await actor.createSession('codex', { cwd: home, model: 'model-a' });
    const reader = new EventReader(session.events);
    const sent = await session.send('hello');
    await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === sent.turnId, 'the turn');
    await session.close();
    await actor.deleteSession(session.id);
    const seen = await until(
      () => (changes.some((change) => change.change === 'deleted') ? changes : undefined),
      'the deleted change',
    );
    const kinds = seen.filter((change) => change.sessionId === session.id).map((change) => change.change);
    expect(kinds[0]).toBe('created');
    expect(kinds).toContain('updated');
    expect(kinds.at(-2)).toBe('closed');
    expect(kinds.at(-1)).toBe('deleted');
    expect(await watcher.listSessions()).toEqual([]);
  });

  it('lists sessions with cwd, model, status, lastSeq and updatedAt', async () => {
    const harness = new ScriptedHarness();
    const target = await start(harness);
    const reins = await connected(target);
    const session = await reins.createSession('codex', { cwd: home, model: 'model-a' });
    const reader = new EventReader(session.events);
    const sent = await session.send('hello');
    const terminal = await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === sent.turnId, 'the turn');
    await reader.waitFor((e) => e.seq > terminal.seq, 'the idle status after it');
    const [listing] = await reins.listSessions();
    expect(SessionListingSchema.strict().parse(listing)).toMatchObject({
      sessionId: session.id,
      harness: 'codex',
      nativeSessionId: session.nativeSessionId,
      cwd: home,
      model: 'model-a',
      status: 'idle',
      lastSeq: session.lastSeq,
    });
    expect(listing?.updatedAt).toBeGreaterThanOrEqual(listing?.createdAt ?? Number.POSITIVE_INFINITY);
    expect(listing?.updatedAt).toBe((reader.events.at(-1) as ReinsEvent).at);
  });
});

describe('version 1 clients', () => {
  it('get version 1 answers and states, no version 2 notifications, and can still drive a session', async () => {
    const harness = new ScriptedHarness();
    const first = await start(harness, { snapshotIntervalMs: 50 });
    const created = await (await connected(first)).createSession('codex', { cwd: home });
    // A restart makes it dormant: a state version 1 does not have.
    for (const reins of clients.splice(0)) reins.close();
    await first.close();
    const target = await start(harness, { snapshotIntervalMs: 50 });

    const raw = await RawSocket.open(target.url);
    raws.push(raw);
    const init = await raw.request('initialize', { token: target.token, client: { name: 'old', version: '1' } });
    expect(init.result).toMatchObject({ protocolVersion: 1 });
    const listed = await raw.request('session/list');
    const v1List = z.array(V1SessionListingSchema.strict()).parse(listed.result);
    expect(v1List).toEqual([
      {
        sessionId: created.id,
        harness: 'codex',
        nativeSessionId: created.nativeSessionId,
        status: 'idle',
        lastSeq: expect.any(Number),
        createdAt: expect.any(Number),
      },
    ]);
    const subscribed = await raw.request('session/subscribe', { sessionId: created.id });
    expect(V1SubscribeResultSchema.strict().parse(subscribed.result).status).toBe('idle');
    const sent = await raw.request('session/send', { sessionId: created.id, input: 'hello again' });
    const turnId = (sent.result as { turnId: string }).turnId;
    await raw.waitFor(
      (frame) =>
        (frame as { params?: { event?: ReinsEvent } }).params?.event?.type === 'turn.completed' &&
        (frame as { params: { event: ReinsEvent } }).params.event.turnId === turnId,
      'the terminal as a session/event',
    );
    // A v2 client creating a session makes sessions/changed for v2 clients only; wait past a few snapshots too.
    const other = await connected(target);
    const changes: SessionsChangedParams[] = [];
    other.onSessionsChanged((change) => changes.push(change));
    await other.createSession('codex', { cwd: home });
    await until(() => (changes.length > 0 ? true : undefined), 'the v2 client saw the change');
    await until(() => (other.lastSnapshot?.sessions.length === 2 ? true : undefined), 'a snapshot with both sessions');
    const methods = raw.frames.flatMap((frame) => {
      const method = (frame as { method?: string }).method;
      return method === undefined ? [] : [method];
    });
    expect(new Set(methods)).toEqual(new Set(['session/event']));
  });
});
