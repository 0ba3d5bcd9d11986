// The real pinned OpenClaw gateway (2026.9.6) in the adapter's default mode: no configured gateway,
// so the adapter starts a local one (in the home's private /tmp, as the conformance target does) and
// sessions of the same launch settings share it. Two sessions on one gateway process get their own
// replies and their own model requests; closing one leaves the other working; the gateway ends with
// the last. Then warm(1): a gateway started ahead, port open and handshake accepted, taken by the
// next session. Runs inside the loopback-only namespace against the scripted model server.
import type { Harness, ReinsEvent } from '@reins/core';
import {
  assertHermetic,
  assertStreamInvariants,
  harnessClisDir,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  privateTmpWrapper,
  reply,
  SessionRecorder,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createOpenClawHarness } from './adapter.js';

// The gateway opens its port 15-19 s after spawn on a quiet machine, far more on a loaded one.
const TURN_MS = 240_000;
const TEST_MS = 600_000;
let server: ModelServer;
let home: TempHome;
let harness: Harness;
const recorders: SessionRecorder[] = [];

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
  home = await makeTempHome('reins-openclaw-shared-');
  const launch = await harnessLaunch('openclaw', { modelServerUrl: server.url, tempHome: home });
  harness = createOpenClawHarness({
    binaryPath: launch.binary.args[0] ?? launch.binary.command,
    baseEnv: launch.env,
    gatewayCommandPrefix: privateTmpWrapper(home, [harnessClisDir(), home.home]),
    connectTimeoutMs: 300_000,
    requestTimeoutMs: 60_000,
    warmCwd: home.home,
  });
}, 120_000);

afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  await harness?.warm?.(0);
});

afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

async function open() {
  const session = await harness.createSession({ cwd: home.home });
  const recorder = new SessionRecorder(session, TURN_MS);
  recorders.push(recorder);
  return { session, recorder };
}

const replyText = (events: readonly ReinsEvent[], turnId: string) =>
  events
    .flatMap((event) =>
      event.type === 'item.completed' && event.turnId === turnId && event.item.kind === 'agent_message'
        ? [event.item.text]
        : [],
    )
    .join('');
const scripted = () => server.requests.filter((request) => request.scripted);

describe('openclaw sessions sharing one local gateway (real gateway)', () => {
  it(
    'two sessions on one gateway process get their own replies; closing one leaves the other working',
    async () => {
      const cold = Date.now();
      const a = await open();
      const coldMs = Date.now() - cold;
      const second = Date.now();
      const b = await open();
      const sharedMs = Date.now() - second;
      // Measured, not asserted (timings go to the bench).
      console.log(`openclaw createSession: cold ${coldMs} ms, second session on the shared gateway ${sharedMs} ms`);
      expect(liveProcessCount()).toBe(1);
      expect(a.session.nativeSessionId).not.toBe(b.session.nativeSessionId);

      // One turn at a time: the scripted model answers requests in order.
      server.enqueue(reply().text('Reply for session A.'));
      const sentA = await a.session.send('Question from session A.');
      expect((await a.recorder.terminalOf(sentA)).outcome).toEqual({ status: 'completed' });
      server.enqueue(reply().text('Reply for session B.'));
      const sentB = await b.session.send('Question from session B.');
      expect((await b.recorder.terminalOf(sentB)).outcome).toEqual({ status: 'completed' });
      expect(liveProcessCount()).toBe(1);

      expect(replyText(a.recorder.events, sentA.turnId)).toBe('Reply for session A.');
      expect(replyText(b.recorder.events, sentB.turnId)).toBe('Reply for session B.');
      // Both sockets saw both runs; neither stream holds the other session's text.
      expect(JSON.stringify(a.recorder.events)).not.toContain('session B');
      expect(JSON.stringify(b.recorder.events)).not.toContain('session A');
      // B's model request holds only B's conversation.
      const [requestA, requestB] = scripted();
      expect(JSON.stringify(requestA?.body)).toContain('Question from session A.');
      expect(JSON.stringify(requestB?.body)).toContain('Question from session B.');
      expect(JSON.stringify(requestB?.body)).not.toContain('session A');

      await a.recorder.close();
      expect(liveProcessCount()).toBe(1);
      expect(b.recorder.events.some((event) => event.type === 'session.closed')).toBe(false);
      server.enqueue(reply().text('Still here for B.'));
      const again = await b.session.send('Are you still there?');
      expect((await b.recorder.terminalOf(again)).outcome).toEqual({ status: 'completed' });
      expect(replyText(b.recorder.events, again.turnId)).toBe('Still here for B.');
      assertStreamInvariants(b.recorder.events, { settled: true });

      await b.recorder.close();
      expect(liveProcessCount()).toBe(0);
    },
    TEST_MS,
  );

  it(
    'warm(1) starts a gateway ahead; the next session takes it and runs a turn',
    async () => {
      const warmStarted = Date.now();
      await harness.warm?.(1);
      const warmMs = Date.now() - warmStarted;
      expect(liveProcessCount()).toBe(1);
      const created = Date.now();
      const { session, recorder } = await open();
      const createMs = Date.now() - created;
      // Measured, not asserted (timings go to the bench): the gateway start is paid in warm().
      console.log(`openclaw warm(1) ready in ${warmMs} ms; createSession on the warm gateway ${createMs} ms`);
      // The replacement gateway is not needed here: stop it before the turn (one gateway per state at a time).
      await harness.warm?.(0);
      expect(liveProcessCount()).toBe(1);
      server.enqueue(reply().text('Hello from a warm gateway.'));
      const sent = await session.send('Say hello.');
      expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
      expect(replyText(recorder.events, sent.turnId)).toBe('Hello from a warm gateway.');
      await recorder.close();
      expect(liveProcessCount()).toBe(0);
    },
    TEST_MS,
  );
});
