// claude-agent-acp 0.23.1 (the previous pin in harness-clis: these are its facts; the current pin, 0.101.0,
// runs the conformance suite and claude-agent-acp.v2.real.test.ts) through the Reins ACP adapter, against the
// scripted model server inside the loopback-only namespace: what only claude-agent-acp does (the scenarios
// every agent shares, on 0.23.1 with its quirks, are presets/presets.real.test.ts).
import { randomUUID } from 'node:crypto';
import { assertHermetic, type ModelServer, reply, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig, agentText } from '../../../../test/support/acp-real.js';
import { modelSwitch } from '../../../../test/support/acp-scenarios.js';
import { liveProcessCount } from '../../../runtime/index.js';

let server: ModelServer;
let rig: AcpRig;

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(async (context) => {
  server.reset();
  const scenario = context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  rig = await acpRig('claude-agent-acp', server, { scenario, extraModels: ['fake-model-2'], pin: 'previous' });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

describe('claude-agent-acp 0.23.1', () => {
  // The home puts its extra model on 2.1.83's list through ANTHROPIC_CUSTOM_MODEL_OPTION.
  it('model switch to the extra model of the home', () => modelSwitch(rig, 'fake-model-2', 'fake-model-2'));

  // 0.23.1 queues prompts itself (agentCapabilities._meta.claudeCode.promptQueueing): a queued turn
  // that reached it would be answered after the cancel. Interrupt ends the running turn and every
  // queued one without sending them, and the next turn still gets its own answer (the reopen).
  it('interrupt with queued turns: every one cancelled, none sent, the next turn answered in step', async () => {
    rig.server.enqueue(reply().text('partial answer').stall());
    const { session, recorder } = await rig.open();
    const first = await session.send('Start something long.');
    const queued = [await session.send('Queued one.'), await session.send('Queued two.')];
    await recorder.waitFor((event) => event.type === 'item.delta' && event.kind === 'text', 'a text delta');
    await session.interrupt();
    const cancelled = await recorder.terminalOf(first);
    expect(cancelled.outcome).toEqual({ status: 'cancelled' });
    for (const sent of queued) expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'cancelled' });
    rig.server.enqueue(reply().text('Answer after the cancel.'));
    const next = await recorder.terminalOf(await session.send('And now something short.'));
    expect(next.outcome).toEqual({ status: 'completed' });
    const afterCancel = recorder.events.slice(
      recorder.events.indexOf(cancelled) + 1,
      recorder.events.indexOf(next) + 1,
    );
    expect(agentText(afterCancel)).toBe('Answer after the cancel.');
    expect(JSON.stringify(rig.server.requests.map((request) => request.body))).not.toContain('Queued');
    await recorder.close();
  });

  // The stall watchdog ends a turn whose model never answers and cancels it at the agent; after that
  // cancel 0.23.1 is off by one like after an interrupt, so the next turn must still get its own answer.
  it('a stalled turn ends with timeout, and the queued turn after it gets its own answer', async () => {
    // A first turn brings the agent up, and the limit is 8 s, not 3: on a loaded machine the agent's start
    // alone took longer than 3 s (the watchdog fired before the stalled request was sent), and after the
    // cancel the agent took over 3 s to show anything of the next turn, which then timed out too.
    rig.server.enqueue(reply().text('Ready.'));
    const { session, recorder } = await rig.open({ stallTimeoutMs: 8000 });
    expect((await recorder.terminalOf(await session.send('Are you ready?'))).outcome).toEqual({ status: 'completed' });
    rig.server.enqueue(reply().text('partial answer').stall());
    const stalled = await session.send('Start something long.');
    await rig.server.waitForRequests(2, { timeoutMs: 30_000 });
    rig.server.enqueue(reply().text('Answer after the stall.'));
    const next = await session.send('And now something short.');
    expect((await recorder.terminalOf(stalled)).outcome).toMatchObject({
      status: 'failed',
      error: { code: 'timeout' },
    });
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    expect(agentText(recorder.turnEvents(next.turnId))).toBe('Answer after the stall.');
    await recorder.close();
  });

  // 0.23.1 advertises sessionCapabilities.fork; session/fork is the Agent SDK's resume + forkSession
  // under a new id. The fork's first model request carries the source's conversation; afterwards
  // the two conversations diverge (the source, resumed, never sees the fork's turn).
  it('fork: a new conversation holding the source history, diverging after', async () => {
    rig.server.enqueue(reply().text('I will remember 42.'));
    const source = await rig.open();
    await source.recorder.terminalOf(await source.session.send('Remember the number 42.'));
    const sourceId = source.session.nativeSessionId as string;
    await source.recorder.close();

    rig.server.enqueue(reply().text('The number was 42, says the fork.'));
    const fork = await rig.open({ resume: { nativeSessionId: sourceId, fork: true } });
    const forkId = fork.session.nativeSessionId as string;
    expect(forkId).toBeTruthy();
    expect(forkId).not.toBe(sourceId);
    const forked = await fork.recorder.terminalOf(await fork.session.send('Which number, fork?'));
    expect(forked.outcome).toEqual({ status: 'completed' });
    const forkRequest = JSON.stringify(rig.server.requests.filter((request) => request.scripted).at(-1)?.body);
    expect(forkRequest).toContain('Remember the number 42.');
    expect(forkRequest).toContain('I will remember 42.');
    expect(forkRequest).toContain('Which number, fork?');
    await fork.recorder.close();

    rig.server.enqueue(reply().text('Still 42 here.'));
    const again = await rig.open({ resume: { nativeSessionId: sourceId } });
    expect(again.session.nativeSessionId).toBe(sourceId);
    await again.recorder.terminalOf(await again.session.send('Which number, source?'));
    const sourceRequest = JSON.stringify(rig.server.requests.filter((request) => request.scripted).at(-1)?.body);
    expect(sourceRequest).toContain('Remember the number 42.');
    expect(sourceRequest).not.toContain('Which number, fork?');
    await again.recorder.close();
    expect((await rig.harness().capabilities()).fork.advertised.state).toBe('yes');
  });

  // The resume users meet (issue 25): session/load of a conversation the agent has no transcript for
  // ends in resume_failed with the agent's own reason, never a silent fresh start, and asks no model.
  it('resume of a conversation the agent does not know: resume_failed with its reason', async () => {
    let failure: unknown;
    try {
      const { session, recorder } = await rig.open({ resume: { nativeSessionId: randomUUID() } });
      const done = await recorder.terminalOf(await session.send('Which number?'));
      failure = done.outcome.status === 'failed' ? done.outcome.error : done.outcome;
    } catch (error) {
      failure = error;
    }
    // 0.23.1 answers -32002 "Resource not found: <id>"; the message carries it.
    expect(failure).toMatchObject({ code: 'resume_failed', message: expect.stringMatching(/Resource not found/) });
    expect(rig.server.requests.filter((request) => request.scripted)).toHaveLength(0);
  });
});
