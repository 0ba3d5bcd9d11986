// Process level: several OpenClaw sessions on one local gateway (the testkit's fake gateway, a real
// WebSocket server process speaking protocol v4 and sending every session's events to every
// connection as 2026.9.6 does), reference counting, a crash of the shared gateway, warm gateways,
// sessions list on a running gateway, and a gateway per session when sharing is off.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Harness, Session } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createOpenClawHarness, type OpenClawHarnessOptions } from './adapter.js';

const fake = fakeHarnessPath('openclaw');
let dir: string;
let log: string;

function harness(knobs: Record<string, string> = {}, options: Partial<OpenClawHarnessOptions> = {}): Harness {
  return createOpenClawHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_OPENCLAW_LOG: log, FAKE_OPENCLAW_START_MS: '50', ...knobs },
    requestTimeoutMs: 5_000,
    connectTimeoutMs: 15_000,
    ...options,
  });
}

const logged = (kind: string) =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${kind} `))
    .map((line) => line.split(' '));
/** The gateway processes the fake logged as listening (pid and cwd). */
const starts = () => logged('start').map(([, pid, cwd]) => ({ pid: Number(pid), cwd }));
/** Which gateway process each chat.send reached, for which session key. */
const chats = () => logged('chat').map(([, pid, key]) => ({ pid: Number(pid), key }));

const recorders: SessionRecorder[] = [];
const harnesses: Harness[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reins-openclaw-shared-'));
  log = join(dir, 'gateway.log');
});
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  await Promise.all(harnesses.splice(0).map((made) => made.warm?.(0)));
  expect(liveProcessCount()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

async function open(made: Harness, cwd = process.cwd()) {
  const session: Session = await made.createSession({ cwd });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder };
}

const text = (recorder: SessionRecorder, turnId: string) =>
  recorder
    .turnEvents(turnId)
    .flatMap((event) => (event.type === 'item.delta' ? [event.text] : []))
    .join('');

describe('openclaw sessions sharing one local gateway (fake gateway)', () => {
  it('two sessions run on one gateway with their own replies; closing one leaves the other working', async () => {
    const made = harness();
    const a = await open(made);
    const b = await open(made);
    expect(liveProcessCount()).toBe(1);
    expect(starts()).toHaveLength(1);
    expect(a.session.nativeSessionId).not.toBe(b.session.nativeSessionId);
    const [sentA, sentB] = await Promise.all([a.session.send('hello from A'), b.session.send('hello from B')]);
    expect((await a.recorder.terminalOf(sentA)).outcome).toEqual({ status: 'completed' });
    expect((await b.recorder.terminalOf(sentB)).outcome).toEqual({ status: 'completed' });
    expect(text(a.recorder, sentA.turnId)).toBe('echo: hello from A');
    expect(text(b.recorder, sentB.turnId)).toBe('echo: hello from B');
    // Both connections received both runs' events: none of the other session's reached either stream.
    expect(JSON.stringify(a.recorder.events)).not.toContain('from B');
    expect(JSON.stringify(b.recorder.events)).not.toContain('from A');

    await a.recorder.close();
    expect(liveProcessCount()).toBe(1);
    expect(b.recorder.events.some((event) => event.type === 'session.closed')).toBe(false);
    const again = await b.session.send('still here');
    expect((await b.recorder.terminalOf(again)).outcome).toEqual({ status: 'completed' });
    expect(text(b.recorder, again.turnId)).toBe('echo: still here');
    await b.recorder.close();
    // The gateway ended with its last session.
    expect(liveProcessCount()).toBe(0);
  });

  it('interrupting one session cancels its run alone; the other finishes its turn', async () => {
    const made = harness();
    const a = await open(made);
    const b = await open(made);
    const stalled = await a.session.send('stall');
    await a.recorder.waitFor((event) => event.type === 'item.delta', 'the stalled delta');
    const sentB = await b.session.send('meanwhile');
    await a.session.interrupt();
    expect((await a.recorder.terminalOf(stalled)).outcome).toEqual({ status: 'cancelled' });
    expect((await b.recorder.terminalOf(sentB)).outcome).toEqual({ status: 'completed' });
    expect(text(b.recorder, sentB.turnId)).toBe('echo: meanwhile');
    const after = await a.session.send('after the abort');
    expect((await a.recorder.terminalOf(after)).outcome).toEqual({ status: 'completed' });
  });

  it('a crash of the shared gateway fails every session on it, each with its own terminal; the next session respawns', async () => {
    const made = harness();
    const a = await open(made);
    const b = await open(made);
    const stalled = await b.session.send('stall');
    await b.recorder.waitFor((event) => event.type === 'item.delta', 'the stalled delta');
    const crash = await a.session.send('crash');
    for (const [{ recorder }, sent] of [
      [a, crash],
      [b, stalled],
    ] as const) {
      const terminal = await recorder.terminalOf(sent);
      expect(terminal.outcome).toMatchObject({ status: 'failed', error: { code: 'process_exited' } });
      // The gateway's stderr belongs to no one session: each error carries it.
      if (terminal.outcome.status === 'failed') expect(terminal.outcome.error.message).toMatch(/crashing as asked/);
      await recorder.waitFor((event) => event.type === 'session.closed', 'session.closed');
      expect(recorder.events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
      expect(recorder.events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'process_exited' });
    }
    expect(liveProcessCount()).toBe(0);
    const c = await open(made);
    expect(liveProcessCount()).toBe(1);
    expect(starts()).toHaveLength(2);
    const sent = await c.session.send('after the crash');
    expect((await c.recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
  });

  it('sessions list and history use the running shared gateway instead of a throwaway one', async () => {
    const made = harness();
    const a = await open(made);
    const sent = await a.session.send('remember me');
    await a.recorder.terminalOf(sent);
    const listed = await made.listSessions?.({ cwd: process.cwd() });
    expect(listed?.map((row) => row.nativeSessionId)).toContain(a.session.nativeSessionId);
    const history = await made.history?.(a.session.nativeSessionId as string);
    expect(history?.map((item) => ('text' in item ? item.text : item.kind))).toEqual([
      'remember me',
      'echo: remember me',
    ]);
    expect(starts()).toHaveLength(1);
    expect(liveProcessCount()).toBe(1);
    await a.recorder.close();
    expect(liveProcessCount()).toBe(0);
    // With no gateway running, listing starts a throwaway one (this fake keeps no state: it lists none).
    await expect(made.listSessions?.({})).resolves.toEqual([]);
    expect(starts()).toHaveLength(2);
    expect(liveProcessCount()).toBe(0);
  });

  it('a session in another working directory gets a gateway of its own (the agent works in the gateway cwd)', async () => {
    const made = harness();
    await open(made, process.cwd());
    await open(made, dir);
    expect(liveProcessCount()).toBe(2);
    expect(starts().map((start) => start.cwd)).toEqual(expect.arrayContaining([process.cwd(), dir]));
  });

  it('shareProcess: false gives each session a gateway of its own', async () => {
    const made = harness({}, { shareProcess: false });
    const a = await open(made);
    const b = await open(made);
    expect(liveProcessCount()).toBe(2);
    await a.recorder.close();
    expect(liveProcessCount()).toBe(1);
    const sent = await b.session.send('alone');
    expect((await b.recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
  });

  it('warm(1) keeps a gateway ready (handshake accepted); a session takes it, a replacement starts; warm(0) stops it', async () => {
    // The gateway answers connect with UNAVAILABLE for a while after its port opens, as 2026.9.6 does.
    const made = harness({ FAKE_OPENCLAW_UNAVAILABLE_MS: '300' }, { warmCwd: dir });
    harnesses.push(made);
    await made.warm?.(1);
    expect(liveProcessCount()).toBe(1);
    const [warmed] = starts();
    const a = await open(made, dir);
    // The session took the warm gateway; a replacement starts at once.
    await expect.poll(() => liveProcessCount(), { timeout: 10_000 }).toBe(2);
    const sent = await a.session.send('on a warm gateway');
    expect((await a.recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    expect(chats()).toEqual([{ pid: warmed?.pid, key: a.session.nativeSessionId }]);
    // A second session shares the gateway the first took, not the replacement.
    const b = await open(made, dir);
    expect(liveProcessCount()).toBe(2);
    await b.recorder.terminalOf(await b.session.send('shared'));
    expect(chats().at(-1)).toEqual({ pid: warmed?.pid, key: b.session.nativeSessionId });
    await made.warm?.(0);
    expect(liveProcessCount()).toBe(1);
  });

  it('warm refuses a count that is not a whole number, and a configured gateway', async () => {
    await expect(harness().warm?.(-1)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(harness({}, { gateway: { url: 'ws://127.0.0.1:9' } }).warm?.(1)).rejects.toMatchObject({
      code: 'unsupported_capability',
    });
  });
});
