// One fake ACP agent process for many sessions (docs/architecture/contract.md, "Warm starts and
// shared processes"): sessions of separate Harness objects with the same launch settings meet on one
// process whatever their cwd, each interrupts, closes and fails alone, frames of no live session reach
// nobody (counted), a crash fails every session with its own terminal and the next session respawns;
// shareProcess: false and warm(n).
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/index.js';
import { createAcpHarness } from './index.js';
import type { AcpSession } from './session.js';

const FAKE = fakeHarnessPath('acp');

const SCENARIO = {
  replies: [
    { match: 'which process', steps: [{ pid: true }] },
    { match: 'wait', steps: [{ text: 'waiting' }, { waitForCancel: true }] },
    { match: 'slow', steps: [{ text: 'slow start' }, { sleep: 400 }, { text: ' slow end' }] },
    { match: 'crash', steps: [{ text: 'partial' }, { stderr: 'panic: shared' }, { sleep: 50 }, { crash: 3 }] },
    { match: 'foreign', steps: [{ foreignUpdate: '$closed' }, { foreignRequest: 'NOBODY' }, { garbage: 'not json' }] },
  ],
};

let dir: string;
let cwdA: string;
let cwdB: string;
const opened: SessionRecorder[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-acp-shared-'));
  cwdA = join(dir, 'a');
  cwdB = join(dir, 'b');
  await mkdir(cwdA);
  await mkdir(cwdB);
});
afterEach(async () => {
  try {
    await SessionRecorder.closeAll(opened.splice(0));
    expect(liveProcessCount()).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

function harness(options: { shareProcess?: boolean; scenario?: unknown } = {}) {
  return createAcpHarness({
    command: FAKE,
    baseEnv: {
      PATH: process.env.PATH,
      FAKE_ACP_SCENARIO: JSON.stringify(options.scenario ?? SCENARIO),
      FAKE_ACP_LOG: join(dir, 'log.jsonl'),
    },
    requestTimeoutMs: 5000,
    ...(options.shareProcess !== undefined ? { shareProcess: options.shareProcess } : {}),
  });
}

async function open(h: ReturnType<typeof harness>, cwd: string) {
  const session = (await h.createSession({ cwd })) as AcpSession;
  const recorder = new SessionRecorder(session, 30_000);
  opened.push(recorder);
  return { session, recorder };
}

/** Every message the agent processes received, in order. */
function received(): { method?: string; params?: Record<string, unknown> }[] {
  return readFileSync(join(dir, 'log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const texts = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
  );

async function pidOf(recorder: SessionRecorder, session: AcpSession): Promise<string> {
  const sent = await session.send('which process');
  await recorder.terminalOf(sent);
  const pid = /\[pid (\d+)\]/.exec(texts(recorder.turnEvents(sent.turnId)).join(''))?.[1];
  expect(pid).toBeDefined();
  return pid as string;
}

describe('one ACP agent process for many sessions', () => {
  it('sessions of two Harness objects share one process, each on its own cwd and its own replies', async () => {
    const a = await open(harness(), cwdA);
    const b = await open(harness(), cwdB);
    expect(liveProcessCount()).toBe(1);
    expect(await pidOf(a.recorder, a.session)).toBe(await pidOf(b.recorder, b.session));
    const news = received().filter((message) => message.method === 'session/new');
    expect(news.map((message) => message.params?.cwd)).toEqual([cwdA, cwdB]);
    expect(received().filter((message) => message.method === 'initialize')).toHaveLength(1);
    const [toA, toB] = [await a.session.send('to a'), await b.session.send('to b')];
    await Promise.all([a.recorder.terminalOf(toA), b.recorder.terminalOf(toB)]);
    expect(texts(a.recorder.events)).toContain('echo: to a');
    expect(texts(a.recorder.events)).not.toContain('echo: to b');
    expect(texts(b.recorder.events)).toContain('echo: to b');
    expect(texts(b.recorder.events)).not.toContain('echo: to a');
  });

  it('interrupting one session cancels only its turn (session/cancel names it); the other completes', async () => {
    const h = harness();
    const a = await open(h, cwdA);
    const b = await open(h, cwdB);
    const waiting = await a.session.send('wait here');
    const slow = await b.session.send('slow one');
    await a.recorder.waitFor((event) => event.type === 'item.delta', 'a text delta of a');
    await a.session.interrupt();
    expect((await a.recorder.terminalOf(waiting)).outcome).toEqual({ status: 'cancelled' });
    expect((await b.recorder.terminalOf(slow)).outcome).toEqual({ status: 'completed' });
    expect(texts(b.recorder.turnEvents(slow.turnId))).toEqual(['slow start slow end']);
    const cancels = received().filter((message) => message.method === 'session/cancel');
    expect(cancels.map((message) => message.params?.sessionId)).toEqual([a.session.nativeSessionId]);
    expect((await b.recorder.turn('after')).outcome).toEqual({ status: 'completed' });
  });

  it('closing one session closes only its native session; the other runs on, and the last close ends the process', async () => {
    const h = harness();
    const a = await open(h, cwdA);
    const b = await open(h, cwdB);
    const slow = await b.session.send('slow one');
    await a.recorder.close();
    expect(liveProcessCount()).toBe(1);
    expect((await b.recorder.terminalOf(slow)).outcome).toEqual({ status: 'completed' });
    const closes = received().filter((message) => message.method === 'session/close');
    expect(closes.map((message) => message.params?.sessionId)).toEqual([a.session.nativeSessionId]);
    // A session opened after a close gets a native id of its own (the fake once reused one).
    const c = await open(h, cwdA);
    expect(c.session.nativeSessionId).not.toBe(b.session.nativeSessionId);
    expect((await c.recorder.turn('third')).outcome).toEqual({ status: 'completed' });
    expect(texts(c.recorder.events)).toEqual(['echo: third']);
    await b.recorder.close();
    expect(liveProcessCount()).toBe(1);
    await c.recorder.close();
    expect(liveProcessCount()).toBe(0);
  });

  it('frames of no live session reach nobody: an update of a session that left, a request naming an unknown one, a stray line', async () => {
    const h = harness();
    const gone = await open(h, cwdA);
    const a = await open(h, cwdA);
    const b = await open(h, cwdB);
    // The fake's late update of a new session (available_commands_update) lands before the close.
    for (const { recorder } of [gone, a, b]) {
      await recorder.waitFor(
        (event) => JSON.stringify(event.native?.frame ?? null).includes('available_commands_update'),
        'the available commands',
      );
    }
    await gone.recorder.close();
    const before = a.session.processDroppedFrames;
    const sent = await a.session.send('foreign');
    const done = await a.recorder.terminalOf(sent);
    expect(done.outcome).toEqual({ status: 'completed' });
    // The request under an unknown session id is refused; the agent goes on.
    expect(texts(a.recorder.turnEvents(sent.turnId))).toEqual(['[foreign error -32601]']);
    expect((await b.recorder.turn('still here')).outcome).toEqual({ status: 'completed' });
    for (const { recorder } of [a, b]) {
      expect(JSON.stringify(recorder.events)).not.toContain('not yours');
      expect(JSON.stringify(recorder.events)).not.toContain('not json');
    }
    // The update of the session that left, the request, the line: three drops, counted once each.
    expect(a.session.processDroppedFrames - before).toBe(3);
    expect(b.session.processDroppedFrames).toBe(a.session.processDroppedFrames);
  });

  it('a crash of the shared process fails every session with its own terminal; the next session respawns', async () => {
    const h = harness();
    const a = await open(h, cwdA);
    const b = await open(h, cwdB);
    const firstPid = await pidOf(a.recorder, a.session);
    const waiting = await b.session.send('wait here');
    await b.recorder.waitFor((event) => event.type === 'item.delta', 'a text delta of b');
    const crashing = await a.session.send('crash now');
    for (const [recorder, sent] of [
      [a.recorder, crashing],
      [b.recorder, waiting],
    ] as const) {
      const completed = await recorder.terminalOf(sent);
      expect(completed.outcome).toMatchObject({
        status: 'failed',
        error: { code: 'process_exited', message: expect.stringContaining('exited with code 3') },
      });
      expect(completed.outcome.status === 'failed' && completed.outcome.error.message).toContain('panic: shared');
      const closed = await recorder.waitFor((event) => event.type === 'session.closed', 'session.closed');
      expect(closed).toMatchObject({ reason: 'process_exited' });
      expect(recorder.events.filter((event) => event.type === 'session.closed')).toHaveLength(1);
    }
    expect(texts(b.recorder.turnEvents(waiting.turnId))).not.toContain('partial');
    const c = await open(harness(), cwdA);
    expect(liveProcessCount()).toBe(1);
    expect(await pidOf(c.recorder, c.session)).not.toBe(firstPid);
  });

  it('shareProcess: false gives each session a process of its own', async () => {
    const a = await open(harness({ shareProcess: false }), cwdA);
    const b = await open(harness({ shareProcess: false }), cwdA);
    expect(liveProcessCount()).toBe(2);
    expect(await pidOf(a.recorder, a.session)).not.toBe(await pidOf(b.recorder, b.session));
  });

  it('resuming a native session the shared process already holds gets a process of its own', async () => {
    const h = createAcpHarness({
      command: FAKE,
      baseEnv: {
        PATH: process.env.PATH,
        FAKE_ACP_SCENARIO: JSON.stringify(SCENARIO),
        FAKE_ACP_STORE: join(dir, 'store'),
      },
      requestTimeoutMs: 5000,
    });
    const a = await open(h, cwdA);
    await a.recorder.turn('remember');
    const again = (await h.createSession({
      cwd: cwdA,
      resume: { nativeSessionId: a.session.nativeSessionId as string },
    })) as AcpSession;
    const b = { session: again, recorder: new SessionRecorder(again, 30_000) };
    opened.push(b.recorder);
    expect(liveProcessCount()).toBe(2);
    expect(await pidOf(a.recorder, a.session)).not.toBe(await pidOf(b.recorder, b.session));
    expect(texts(a.recorder.events)).not.toContain('echo: remember'.repeat(2));
  });

  it('warm(1) keeps an initialised agent with no session; a session takes it and a replacement starts; warm(0) stops it', async () => {
    const h = harness();
    await h.warm(1);
    expect(liveProcessCount()).toBe(1);
    expect(received().map((message) => message.method)).toEqual(['initialize']);
    const a = await open(h, cwdA);
    await h.warm(1);
    expect(liveProcessCount()).toBe(2);
    // The session ran on the warm process: one session/new, and only two initialize in all.
    expect(received().filter((message) => message.method === 'initialize')).toHaveLength(2);
    expect(received().filter((message) => message.method === 'session/new')).toHaveLength(1);
    const b = await open(harness(), cwdB);
    // The second session shares the first's process; the spare stays parked.
    expect(liveProcessCount()).toBe(2);
    expect(await pidOf(a.recorder, a.session)).toBe(await pidOf(b.recorder, b.session));
    await h.warm(0);
    expect(liveProcessCount()).toBe(1);
    await expect(h.warm(-1)).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
