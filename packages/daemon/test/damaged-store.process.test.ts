// A damaged SQLite store, damaged the ways disks and tools damage files (bytes written into the
// real file, or its schema row deleted): corrupt middle pages, a damaged B-tree root, a missing
// table and a file that is no database make the built `reins daemon` exit 2 with the sentence that
// names the damage and both ways out; `reins daemon --repair` keeps what reads (and the damaged
// file beside it) and the daemon then replays every seq of the healthy part. A row whose text is
// no JSON does not stop the start: its replay is an `error` event naming the seq, every other event
// as stored, and no non-JSON frame.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReinsEvent } from '@reins/core';
import { streamViolations } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, type DaemonOptions, SqliteStore, startDaemon } from '../src/index.js';
import { openSqlite } from '../src/store/sqlite-driver.js';
import { client, EventReader } from './helpers.js';

const REINS_BIN = fileURLToPath(new URL('../../cli/bin/reins.js', import.meta.url));
const BUILT_CLI = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));
const PAGE = 4096;
const LONG = 3_000;
const SHORT = 40;

let root: string;
let home: string;
let storePath: string;
let daemon: Daemon | undefined;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'reins-damaged-'));
  home = join(root, 'home');
  await mkdir(home, { mode: 0o700 });
  storePath = join(home, 'reins.db');
  await makeStore();
});
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  await rm(root, { recursive: true, force: true });
});

const text = (seq: number) => `line ${String(seq).padStart(5, '0')} ${'x'.repeat(150)}`;

/** Session "short" (40 events, first in the file), then "long" (3,000); closed, so the WAL is in the file. */
async function makeStore(): Promise<void> {
  const store = await SqliteStore.open(storePath);
  for (const [sessionId, count] of [
    ['short', SHORT],
    ['long', LONG],
  ] as const) {
    await store.putSession({
      sessionId,
      harness: 'codex',
      cwd: root,
      spec: { cwd: root },
      state: 'open',
      generation: 0,
      createdAt: 1,
      updatedAt: 1,
    });
    const events: ReinsEvent[] = [];
    for (let seq = 1; seq <= count; seq++) {
      events.push({
        type: 'item.delta',
        seq,
        harness: 'codex',
        sessionId,
        turnId: null,
        at: seq,
        itemId: 'i',
        kind: 'text',
        text: text(seq),
      } as ReinsEvent);
    }
    await store.appendEvents(sessionId, events);
  }
  await store.close();
}

function writeAt(offset: number, bytes: Buffer): void {
  const fd = openSync(storePath, 'r+');
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

function rootPage(table: string): number {
  const db = openSqlite(storePath);
  const row = db.prepare('SELECT rootpage FROM sqlite_schema WHERE name = ?').get(table) as { rootpage: number };
  db.close();
  return row.rootpage;
}

/** The byte offset of `marker` in the file. */
function offsetOf(marker: string): number {
  const at = readFileSync(storePath).indexOf(marker);
  if (at < 0) throw new Error(`${marker} is not in the file`);
  return at;
}

/** The built CLI on this home: its exit code and output. */
function reins(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  if (!existsSync(BUILT_CLI)) throw new Error(`The CLI is not built (${BUILT_CLI}): run npm run build first.`);
  const run = spawnSync(process.execPath, [REINS_BIN, 'daemon', ...args], {
    env: { ...process.env, REINS_HOME: home },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function expectRefused(what: RegExp): void {
  const run = reins('--log-level', 'silent');
  expect(run.status).toBe(2);
  expect(run.stderr).toMatch(/The Reins store .*reins\.db is damaged \(/);
  expect(run.stderr).toMatch(what);
  expect(run.stderr).toContain('mv ');
  expect(run.stderr).toContain('reins daemon --repair');
  expect(run.stderr).not.toMatch(/SqliteError|at .*\.js:\d+/);
}

function repair(): string {
  const run = reins('--repair');
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(readdirSync(home).some((name) => name.startsWith('reins.db.damaged-'))).toBe(true);
  return run.stdout;
}

/** The whole log of a session through a daemon on this home, up to its listed lastSeq. */
async function replay(sessionId: string, options: Partial<DaemonOptions> = {}): Promise<ReinsEvent[]> {
  daemon = await startDaemon({
    home,
    harnesses: ['codex'],
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    ...options,
  });
  const reins = await client(daemon.url, daemon.token);
  try {
    const listing = (await reins.listSessions()).find((entry) => entry.sessionId === sessionId);
    if (!listing || listing.lastSeq === 0) return [];
    const session = await reins.attach(sessionId, { afterSeq: 0 });
    const reader = new EventReader(session.events);
    await reader.waitFor((event) => event.seq === listing.lastSeq, `seq ${listing.lastSeq}`, 30_000);
    await session.detach();
    return reader.events;
  } finally {
    reins.close();
    await daemon.close();
    daemon = undefined;
  }
}

function expectWhole(events: ReinsEvent[], count: number): { lost: number[] } {
  expect(events.map((event) => event.seq)).toEqual(Array.from({ length: count }, (_, index) => index + 1));
  const lost: number[] = [];
  for (const event of events) {
    if (event.type === 'item.delta') expect(event.text).toBe(text(event.seq));
    else {
      expect(event).toMatchObject({ type: 'error', code: 'store_unavailable', data: { damaged: {} } });
      lost.push(event.seq);
    }
  }
  return { lost };
}

describe('a damaged store', () => {
  it('corrupt middle pages: exit 2 with the fix; --repair keeps every other event, the lost ones named', async () => {
    const page = Math.floor(offsetOf(text(1500)) / PAGE);
    writeAt(page * PAGE, Buffer.alloc(3 * PAGE, 0x55));
    expectRefused(/quick_check/);
    expect(repair()).toMatch(/kept 2 session\(s\)/);
    const long = await replay('long');
    const { lost } = expectWhole(long, LONG);
    expect(lost).toContain(1500);
    expect(lost.length).toBeLessThan(200);
    expect(expectWhole(await replay('short'), SHORT).lost).toEqual([]);
  }, 120_000);

  it('corrupt pages found while serving (a store too big for the check at start): the replay names the seqs that do not read and serves the rest', async () => {
    const page = Math.floor(offsetOf(text(1500)) / PAGE);
    writeAt(page * PAGE, Buffer.alloc(PAGE, 0x55));
    const store = await SqliteStore.open(storePath, { quickCheckMaxBytes: 0 });
    const { lost } = expectWhole(await replay('long', { store }), LONG);
    expect(lost).toContain(1500);
    expect(lost.length).toBeLessThan(100);
  }, 60_000);

  it('a turn whose terminal was lost: --repair ends it failed, so every turn keeps one terminal', async () => {
    const store = await SqliteStore.open(storePath);
    const envelope = { harness: 'codex', sessionId: 'short', turnId: 't9', at: 1 };
    const item = { kind: 'agent_message', id: 'a9', text: '' };
    const turn = [
      { type: 'turn.started', input: { text: 'go' } },
      { type: 'item.started', item: { ...item, status: 'running' } },
      ...Array.from({ length: 200 }, (_, index) => ({
        type: 'item.delta',
        itemId: 'a9',
        kind: 'text',
        text: `turn text ${index}`,
      })),
      {
        type: 'turn.completed',
        outcome: { status: 'failed', error: { code: 'provider_error', message: 'marker-terminal' } },
      },
    ].map((payload, index) => ({ ...envelope, ...payload, seq: SHORT + 1 + index }) as ReinsEvent);
    await store.appendEvents('short', turn);
    await store.close();
    const page = Math.floor(offsetOf('marker-terminal') / PAGE);
    writeAt(page * PAGE, Buffer.alloc(PAGE, 0x55));
    expectRefused(/quick_check/);
    repair();
    const events = await replay('short');
    expect(streamViolations(events, { settled: true })).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      type: 'turn.completed',
      turnId: 't9',
      outcome: { status: 'failed', error: { code: 'store_unavailable' } },
    });
    expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
  }, 120_000);

  it('a damaged B-tree root: exit 2 with the fix; --repair keeps the sessions', async () => {
    writeAt((rootPage('events') - 1) * PAGE, Buffer.alloc(PAGE, 0xa7));
    expectRefused(/quick_check|malformed|corrupt/i);
    expect(repair()).toMatch(/kept 2 session\(s\)/);
    daemon = await startDaemon({
      home,
      harnesses: ['codex'],
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    const reins = await client(daemon.url, daemon.token);
    expect((await reins.listSessions()).map((session) => session.sessionId).sort()).toEqual(['long', 'short']);
    reins.close();
  }, 120_000);

  it('a missing table: exit 2 naming it', async () => {
    // The schema page (page 1) names the table otherwise: every "events" there becomes "evxnts".
    const first = readFileSync(storePath).subarray(0, PAGE);
    for (let at = first.indexOf('events'); at >= 0; at = first.indexOf('events', at + 1)) {
      writeAt(at, Buffer.from('evxnts'));
    }
    expectRefused(/its events table is missing/);
  }, 60_000);

  it('not a database: exit 2 with the fix; --repair starts an empty store and keeps the file', async () => {
    writeAt(0, Buffer.alloc(100, 0x42));
    expectRefused(/not a database/);
    expect(repair()).toMatch(/kept 0 session\(s\)/);
    expect(await replay('long')).toEqual([]);
  }, 120_000);

  it('a row whose text is no JSON: the daemon starts, its replay names the seq, every other event as stored', async () => {
    // Same length, so no page changes shape: only the row's text is wrong (quick_check cannot see it).
    const at = offsetOf(text(1234));
    writeAt(at - 1, Buffer.from('}'));
    const events = await replay('long');
    const { lost } = expectWhole(events, LONG);
    expect(lost).toEqual([1234]);
    expect(events.find((event) => event.seq === 1234)).toMatchObject({
      message: expect.stringMatching(/Event 1234 of this session could not be read .*not JSON/),
      data: { damaged: { from: 1234, to: 1234 } },
    });
  }, 60_000);
});
