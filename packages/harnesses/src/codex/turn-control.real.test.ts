// Real Codex (pinned), hermetic: interrupting, steering and queueing turns.
import type { ReinsEvent } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

const agentTexts = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
  );

describe('codex real: turn control', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('interrupts a stalled stream: cancelled outcome, the next turn completes', async () => {
    rig = await codexRig('interrupt');
    rig.server.enqueue(reply().text('This answer never finishes').stall());
    const { session, recorder } = await rig.open();
    const first = await session.send('Start a long answer.');
    await recorder.waitFor(
      (event) => event.type === 'item.delta' && event.kind === 'text' && event.turnId === first.turnId,
      'a text delta',
    );
    await session.interrupt();
    const terminal = await recorder.terminalOf(first);
    expect(terminal.outcome).toEqual({ status: 'cancelled' });

    rig.server.enqueue(reply().text('Back in business.'));
    const second = await session.send('Are you still there?');
    const next = await recorder.terminalOf(second);
    expect(next.outcome).toEqual({ status: 'completed' });
    expect(agentTexts(recorder.turnEvents(second.turnId))).toEqual(['Back in business.']);
    await recorder.close();
  });

  it('stall watchdog: a stalled stream fails the turn with timeout; the queued turn still gets its own answer', async () => {
    // The queued turn/start must wait until Codex ended the stalled turn: Codex takes a turn/start
    // during its active turn as a steer.
    rig = await codexRig('stall');
    rig.server.enqueue(reply().text('This answer stalls').stall(), reply().text('A fresh answer.'));
    const { session, recorder } = await rig.open({ stallTimeoutMs: 1_000 });
    const first = await session.send('Start a long answer.');
    const second = await session.send('Next question.');
    expect(second.delivery).toBe('queued');
    expect((await recorder.terminalOf(first)).outcome).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    expect(agentTexts(recorder.turnEvents(second.turnId))).toEqual(['A fresh answer.']);
    expect(recorder.ofType('turn.completed')).toHaveLength(2);
    await recorder.close();
  });

  it('interrupts a running command: the dangling tool_call is closed as cancelled', async () => {
    rig = await codexRig('interrupt-command');
    rig.server.enqueue(reply().shell('sleep 30'));
    const { session, recorder } = await rig.open();
    const first = await session.send('Run the slow command.');
    const started = await recorder.waitFor(
      (event) => event.type === 'item.started' && event.item.kind === 'tool_call' && event.turnId === first.turnId,
      'the command item',
    );
    await session.interrupt();
    const terminal = await recorder.terminalOf(first);
    expect(terminal.outcome).toEqual({ status: 'cancelled' });
    // 0.169.0 never sends item/completed for an item running at interrupt; the adapter's stream closes it.
    const itemId = started.type === 'item.started' ? started.item.id : '';
    const closed = recorder
      .turnEvents(first.turnId)
      .find((event) => event.type === 'item.completed' && event.item.id === itemId);
    expect(closed?.type === 'item.completed' && closed.item.status).toBe('cancelled');

    rig.server.enqueue(reply().text('Still here.'));
    const second = await session.send('Still there?');
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });

  it('steers a running turn: same turn, the steer reaches the model, one terminal', async () => {
    rig = await codexRig('steer');
    rig.server.enqueue(reply().text('Working on the first idea').stall());
    rig.server.when('use the second idea', reply().text('Switched to the second idea.'));
    const { session, recorder } = await rig.open();
    const first = await session.send('Work on the first idea.');
    await recorder.waitFor((event) => event.type === 'item.delta' && event.turnId === first.turnId, 'a text delta');
    const steer = await session.send('Actually, use the second idea.', { mode: 'steer' });
    expect(steer).toEqual({ turnId: first.turnId, delivery: 'steered' });
    const terminal = await recorder.terminalOf(first);
    expect(terminal.outcome).toEqual({ status: 'completed' });

    const turn = recorder.turnEvents(first.turnId);
    const users = turn.flatMap((event) =>
      event.type === 'item.completed' && event.item.kind === 'user_message' ? [event.item.text] : [],
    );
    expect(users).toEqual(['Work on the first idea.', 'Actually, use the second idea.']);
    expect(agentTexts(turn)).toContain('Switched to the second idea.');
    const steered = rig.server.requests.filter((request) => request.userText.includes('second idea'));
    expect(steered.length).toBeGreaterThan(0);
    expect(recorder.ofType('turn.started')).toHaveLength(1);
    await recorder.close();
  });

  it('queues a message sent while a turn runs and starts it after the turn completes', async () => {
    rig = await codexRig('queue');
    rig.server.enqueue(reply().text('First answer, slowly.').delayMs(150), reply().text('Second answer.'));
    const { session, recorder } = await rig.open();
    const first = await session.send('First question.');
    const second = await session.send('Second question.');
    expect(first.delivery).toBe('started');
    expect(second.delivery).toBe('queued');
    expect(second.turnId).not.toBe(first.turnId);
    expect((await recorder.terminalOf(first)).outcome).toEqual({ status: 'completed' });
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    expect(agentTexts(recorder.turnEvents(first.turnId))).toEqual(['First answer, slowly.']);
    expect(agentTexts(recorder.turnEvents(second.turnId))).toEqual(['Second answer.']);
    const startedOrder = recorder.ofType('turn.started').map((event) => event.turnId);
    expect(startedOrder).toEqual([first.turnId, second.turnId]);
    await recorder.close();
  });
});
