// The real pinned OpenClaw gateway (2026.9.6, on the Node 24 from harness-clis) driven by the adapter
// against the scripted model server, inside the loopback-only namespace. The gateway starts slowly
// (port after 15-19 s, much more on a cold 2-core machine), so ONE gateway serves the whole file and
// each test uses its own session key; the last test restarts it on the same state folder. The gateway
// runs in its own mount namespace (testkit wrapper) because it writes fixed /tmp paths.
// REINS_RECORD_OPENCLAW_FIXTURES=1 writes every WebSocket frame to /tmp/openclaw-fixtures/<test>.<version>.jsonl
// (reins/v1; redact the connect token before copying one into fixtures/).
import type { Harness, ReinsEvent, SendResult } from '@reins/core';
import {
  assertHermetic,
  assertStreamInvariants,
  fixtureRecorder,
  type HarnessLaunch,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  reply,
  SessionRecorder,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HarnessProcess } from '../runtime/child-process.js';
import { createOpenClawHarness } from './adapter.js';

// Turns took 10-60 s on a loaded 2-core machine (the first run of a session prepares its workspace).
const TURN_MS = 180_000;
const TEST_MS = 300_000;
let server: ModelServer;
let home: TempHome;
let launch: HarnessLaunch;
let gateway: HarnessProcess;
let harness: Harness;
let fixture: ReturnType<typeof fixtureRecorder> | undefined;
const recorders: SessionRecorder[] = [];
let firstKey: string | undefined;

async function startGateway(): Promise<void> {
  launch = await harnessLaunch('openclaw', {
    modelServerUrl: server.url,
    tempHome: home,
    extraModels: ['fake-model-2'],
    // A price for the fake models, so that OpenClaw reports a cost (USD per million tokens).
    modelPrice: { input: 3, output: 15 },
  });
  gateway = await HarnessProcess.start({
    command: launch.command,
    args: launch.args,
    cwd: home.home,
    env: launch.env,
    label: 'openclaw gateway run',
  });
  const endpoint = launch.home.endpoint as { url: string; token: string };
  harness = createOpenClawHarness({
    gateway: endpoint,
    requestTimeoutMs: 60_000,
    connectTimeoutMs: 240_000,
    tap: (direction, text) => fixture?.tap(direction, text),
  });
  // Waits out the slow start-up (retryable UNAVAILABLE / 1013 included) before the first test.
  await harness.listSessions?.({});
}

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
  home = await makeTempHome('reins-openclaw-');
  await startGateway();
}, 300_000);

afterAll(async () => {
  await gateway?.close();
  await server?.close();
  await home?.cleanup();
});

beforeEach((context) => {
  server.reset();
  fixture =
    process.env.REINS_RECORD_OPENCLAW_FIXTURES === '1'
      ? fixtureRecorder({
          harness: 'openclaw',
          package: launch.binary.packageName,
          version: launch.binary.version,
          behaviour: context.task.name.replace(/[^a-z0-9]+/gi, '-'),
        })
      : undefined;
});

afterEach(async () => {
  try {
    // Closing checks each session's stream invariants.
    await SessionRecorder.closeAll(recorders.splice(0));
  } finally {
    await fixture?.saveIn('/tmp/openclaw-fixtures');
  }
});

async function open(spec: Partial<Parameters<Harness['createSession']>[0]> = {}) {
  const session = await harness.createSession({ cwd: home.home, ...spec });
  const recorder = new SessionRecorder(session, TURN_MS);
  recorders.push(recorder);
  return { session, recorder };
}

const isTerminal = (event: ReinsEvent) => event.type === 'turn.completed';
const endOf = (sent: SendResult) => (event: ReinsEvent) => isTerminal(event) && event.turnId === sent.turnId;
const completedItems = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) => (event.type === 'item.completed' ? [event.item] : []));
const scripted = () => server.requests.filter((request) => request.scripted);

describe('openclaw (real gateway)', () => {
  it(
    'runs a text turn with text deltas, usage and a provider-reported cost',
    async () => {
      server.enqueue(reply().text('Hello from fake model.').usage({ input: 101, output: 20 }));
      const { session, recorder } = await open();
      firstKey = session.nativeSessionId;
      expect(firstKey).toMatch(/^agent:main:reins-/);
      const sent = await session.send('Say hello please.');
      const done = await recorder.terminalOf(sent);
      const events = await recorder.collect(isTerminal, 'turn.completed');
      assertStreamInvariants(events, { settled: true });
      expect(done).toMatchObject({ outcome: { status: 'completed' }, stopReason: 'stop' });
      expect(completedItems(events)).toContainEqual(
        expect.objectContaining({ kind: 'agent_message', text: 'Hello from fake model.' }),
      );
      expect(events.some((event) => event.type === 'item.delta' && event.kind === 'text')).toBe(true);
      expect(done.usage).toMatchObject({
        turn: { input: 101, output: 20 },
        costUsd: { amount: expect.closeTo((101 * 3 + 20 * 15) / 1e6, 9), currency: 'USD', source: 'provider' },
      });
      expect(events[0]).toMatchObject({ type: 'session.started', harnessVersion: '2026.9.6' });
    },
    TEST_MS,
  );

  it(
    'runs an exec tool call as a command item with its output',
    async () => {
      server.enqueue(reply().shell('echo hello-from-tool'), reply().text('The command printed hello-from-tool.'));
      const { session, recorder } = await open();
      await session.send('Run a command.');
      const events = await recorder.collect(isTerminal, 'turn.completed');
      assertStreamInvariants(events, { settled: true });
      const tool = completedItems(events).find((item) => item.kind === 'tool_call');
      expect(tool).toMatchObject({ status: 'completed', tool: { kind: 'command', name: 'exec' } });
      expect(JSON.stringify(tool)).toContain('hello-from-tool');
      expect(scripted()).toHaveLength(2);
    },
    TEST_MS,
  );

  it(
    'interrupts a streaming run: cancelled, and the session goes on',
    async () => {
      server.enqueue(
        reply().text('slow chunk 0. slow chunk 1. slow chunk 2.').stall(),
        reply().text('After the abort.'),
      );
      const { session, recorder } = await open();
      const talk = await session.send('Talk slowly.');
      await recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
      await session.interrupt();
      expect(await recorder.waitFor(isTerminal, 'the first turn.completed')).toMatchObject({
        turnId: talk.turnId,
        outcome: { status: 'cancelled' },
      });
      const again = await session.send('Are you there?');
      const events = await recorder.collect(endOf(again), 'the second turn.completed');
      expect(events.at(-1)).toMatchObject({ outcome: { status: 'completed' } });
      assertStreamInvariants(events, { settled: true });
    },
    TEST_MS,
  );

  it(
    'switches the model with sessions.patch; the next request uses it',
    async () => {
      server.enqueue(reply().text('On model two.'));
      const { session, recorder } = await open({ resume: { nativeSessionId: firstKey as string } });
      await expect(session.setModel('fake/fake-model-2')).resolves.toEqual({ applied: 'live' });
      await session.send('Which model?');
      assertStreamInvariants(await recorder.collect(isTerminal, 'turn.completed'), { settled: true });
      expect(scripted().at(-1)?.model).toBe('fake-model-2');
    },
    TEST_MS,
  );

  it(
    'fails a turn on a provider error with exactly one terminal (the duplicated error event is deduplicated)',
    async () => {
      for (let attempt = 0; attempt < 4; attempt++) server.enqueue(reply().httpError(400));
      const { session, recorder } = await open();
      const fail = await session.send('Fail please.');
      const done = await recorder.terminalOf(fail);
      expect(done).toMatchObject({ outcome: { status: 'failed', error: { code: 'provider_error' } } });
      // Let a late duplicate arrive, then check there is still one terminal.
      const afterFirst = recorder.events.indexOf(done) + 1;
      await session.send('Still there?').catch(() => undefined);
      await recorder.waitFor(isTerminal, 'the next turn.completed', TURN_MS, afterFirst).catch(() => undefined);
      assertStreamInvariants(recorder.events, { settled: true });
    },
    TEST_MS,
  );

  it('keeps history and the patched model across a gateway restart', async () => {
    const key = firstKey as string;
    await gateway.close();
    await startGateway();
    const history = await harness.history?.(key);
    const texts = (history ?? []).map((item) => ('text' in item ? item.text : item.kind));
    expect(texts).toEqual(
      expect.arrayContaining(['Say hello please.', 'Hello from fake model.', 'Which model?', 'On model two.']),
    );
    server.enqueue(reply().text('Back after the restart.'));
    const { session, recorder } = await open({ resume: { nativeSessionId: key } });
    await session.send('Do you remember?');
    assertStreamInvariants(await recorder.collect(isTerminal, 'turn.completed'), { settled: true });
    const last = scripted().at(-1);
    expect(last?.model).toBe('fake-model-2');
    expect(JSON.stringify(last?.body)).toContain('Say hello please.');
  }, 600_000);
});
