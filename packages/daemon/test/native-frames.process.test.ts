// Native frames through the daemon (docs/architecture/contract.md, "The guard"): a terminal whose
// native frame nests 255 or 260 levels still ends its turn and leaves the session idle, and a frame
// that fans out into 8,000 events (Claude Code's assistant message with 4,000 text blocks) is stored
// once, the other events referring to it, while another session on the daemon streams its turns.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import { nativeFrameRef, type ReinsEvent, ReinsEventSchema } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, SqliteStore, STORE_FILE, startDaemon } from '../src/index.js';
import {
  claudeFixture,
  client,
  codexTranscript,
  EventReader,
  fakeClaudeOptions,
  fakeCodexOptions,
  silent,
} from './helpers.js';

let home: string;
let daemon: Daemon | undefined;
let reins: ReinsClient | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-native-'));
});

afterEach(async () => {
  await reins?.close();
  reins = undefined;
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** The frame's nesting depth (the frame itself is level 1). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

/** Codex's recorded text turn whose turn/completed carries one field nested so that the frame is `depth` deep. */
async function deepTerminalTranscript(depth: number): Promise<string> {
  const lines = (await readFile(codexTranscript('text-turn'), 'utf8')).split('\n').filter(Boolean);
  const at = lines.findIndex((line) => line.includes('"method":"turn/completed"'));
  expect(at).toBeGreaterThan(0);
  const record = JSON.parse(lines[at] as string) as { frame: { params: Record<string, unknown> } };
  // frame (1) -> params (2) -> detail (3...): the array chain adds depth - 2 levels below params.
  record.frame.params.detail = nested(depth - 2);
  expect(depthOf(record.frame)).toBe(depth);
  lines[at] = JSON.stringify(record);
  const path = join(home, `deep-${depth}.jsonl`);
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

describe('a terminal with a deep native frame, through the daemon', () => {
  it('ends its turn (255 and 260 levels) and the session goes idle', async () => {
    daemon = await startDaemon({ home: join(home, 'reins'), harnesses: ['codex'], logger: silent });
    reins = await client(daemon.url, daemon.token);
    for (const depth of [255, 260]) {
      const transcript = await deepTerminalTranscript(depth);
      const session = await reins.createSession(
        'codex',
        { cwd: home },
        fakeCodexOptions('text-turn', { FAKE_CODEX_TRANSCRIPT: transcript }),
      );
      const reader = new EventReader(session.events);
      const sent = await session.send('Say hello.');
      const terminal = await reader.waitFor(
        (e) => e.type === 'turn.completed' && e.turnId === sent.turnId,
        `the terminal at depth ${depth}`,
      );
      expect(terminal).toMatchObject({ outcome: { status: 'completed' }, native: { method: 'turn/completed' } });
      expect(JSON.stringify(terminal.native?.frame)).toContain('reinsTruncated');
      expect(reader.events.filter((e) => e.type === 'passthrough' && e.reason === 'invalid_event')).toEqual([]);
      // The daemon's view: the turn is over, the session idle (waited for with a deadline).
      const deadline = Date.now() + 10_000;
      let status: string | undefined;
      while (Date.now() < deadline) {
        status = (await reins.listSessions()).find((entry) => entry.sessionId === session.id)?.status;
        if (status === 'idle') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe('idle');
      for (const event of reader.events) expect(ReinsEventSchema.safeParse(event).success).toBe(true);
    }
  }, 60_000);
});

const BLOCKS = 4_000;

/**
 * Claude Code's recorded text turn with its reply as one assistant frame of 4,000 text blocks (no
 * partial messages): the frame's size in bytes and the fixture's path.
 */
async function fanOutFixture(): Promise<{ path: string; frameBytes: number }> {
  const lines = (await readFile(claudeFixture('text-turn'), 'utf8')).split('\n').filter(Boolean);
  const records = lines.map((line) => JSON.parse(line) as { dir?: string; frame?: Record<string, unknown> });
  const reply = records.find(
    (r) => r.frame?.type === 'assistant' && JSON.stringify(r.frame).includes('Hello from the scripted model!'),
  );
  expect(reply).toBeDefined();
  const frame = structuredClone(reply?.frame) as { message: { content: unknown[] } };
  frame.message.content = Array.from({ length: BLOCKS }, (_, index) => ({
    type: 'text',
    text: `Block ${index}: ${'lorem ipsum '.repeat(16)}`,
  }));
  const kept = records
    .filter((r) => r.frame?.type !== 'stream_event' && r.frame?.type !== 'assistant')
    .map((r) => JSON.stringify(r));
  const at = kept.findIndex((line) => line.includes('"type":"result"'));
  const line = JSON.stringify({ ...reply, frame });
  kept.splice(at, 0, line);
  const path = join(home, 'fan-out.jsonl');
  await writeFile(path, `${kept.join('\n')}\n`);
  return { path, frameBytes: Buffer.byteLength(JSON.stringify(frame)) };
}

describe('a frame that fans out into thousands of events, through the daemon', () => {
  it('is stored once (the other events refer to it) while another session streams its turns', async () => {
    const { path, frameBytes } = await fanOutFixture();
    const claudeHome = join(home, 'claude-home');
    daemon = await startDaemon({ home: join(home, 'reins'), harnesses: ['claude-code', 'codex'], logger: silent });
    reins = await client(daemon.url, daemon.token);
    const wide = await reins.createSession(
      'claude-code',
      { cwd: home },
      fakeClaudeOptions({ home: claudeHome, extra: { FAKE_CLAUDE_FIXTURE: path } }),
    );
    const other = await reins.createSession('codex', { cwd: home }, fakeCodexOptions('text-turn'));
    const wideReader = new EventReader(wide.events);
    const otherReader = new EventReader(other.events);
    const wideTurn = await wide.send('Say hello.');
    // The other session runs three turns, one after another, while the wide frame is handled.
    for (let turn = 0; turn < 3; turn++) {
      const sent = await other.send('Say hello.');
      await otherReader.waitFor((e) => e.type === 'turn.completed' && e.turnId === sent.turnId, `other turn ${turn}`);
    }
    const terminal = await wideReader.waitFor(
      (e) => e.type === 'turn.completed' && e.turnId === wideTurn.turnId,
      'the wide turn',
      60_000,
    );
    expect(terminal).toMatchObject({ outcome: { status: 'completed' } });
    const completed = wideReader.events.filter((e) => e.type === 'item.completed' && e.item.kind === 'agent_message');
    expect(completed).toHaveLength(BLOCKS);
    // One event carries the frame whole; every other event of the frame refers to it.
    const fromFrame = wideReader.events.filter((e) => e.native?.method === 'assistant');
    expect(fromFrame.length).toBeGreaterThanOrEqual(2 * BLOCKS);
    const carrier = fromFrame[0] as ReinsEvent;
    expect(Buffer.byteLength(JSON.stringify(carrier.native?.frame))).toBe(frameBytes);
    for (const event of fromFrame.slice(1)) expect(nativeFrameRef(event.native?.frame)).toBe(carrier.seq);

    // Stored bytes (as the store gives the events back): the frame once, each block's text once, and a small envelope per event.
    const eventCount = wideReader.events.length;
    await reins.close();
    reins = undefined;
    await daemon.close();
    daemon = undefined;
    const store = await SqliteStore.open(join(home, 'reins', STORE_FILE));
    let storedBytes = 0;
    let nativeBytes = 0;
    try {
      const stored = await store.readEvents(wide.id, 0, eventCount + 100);
      // What the reader saw, and the session.closed of the daemon's close.
      expect(stored.length).toBeGreaterThanOrEqual(eventCount);
      for (const event of stored) {
        storedBytes += Buffer.byteLength(JSON.stringify(event));
        if (event.native) nativeBytes += Buffer.byteLength(JSON.stringify(event.native));
      }
    } finally {
      await store.close();
    }
    expect(nativeBytes).toBeLessThan(frameBytes + 100 * eventCount);
    expect(storedBytes).toBeLessThan(3 * frameBytes + 400 * eventCount);
  }, 120_000);
});
