// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332): a follow-up sent while a turn runs is queued by Reins and runs next,
// with the first turn's answer in its history. Claude has no mid-turn steer: steer queues, or fails
// when the caller asked for that.
import { ReinsError } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: queue', () => {
  test('queued follow-up runs after the running turn', async () => {
    rig = await claudeRig('queued-follow-up');
    rig.server.enqueue(reply().text('First answer, slowly.').delayMs(300));
    rig.server.enqueue(reply().text('Second answer.'));
    const { session, recorder } = await rig.open();
    const first = await session.send('First question');
    const second = await session.send('Second question');
    expect(first.delivery).toBe('started');
    expect(second.delivery).toBe('queued');
    const steered = await session.send('Third, as steer', { mode: 'steer' });
    expect(steered.delivery).toBe('queued');
    await expect(session.send('Steer or fail', { mode: 'steer', steerFallback: 'fail' })).rejects.toSatisfy(
      (error) => ReinsError.isInstance(error) && error.code === 'unsupported_capability',
    );
    rig.server.enqueue(reply().text('Third answer.'));
    expect((await recorder.terminalOf(first)).outcome).toEqual({ status: 'completed' });
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    expect((await recorder.terminalOf(steered)).outcome).toEqual({ status: 'completed' });
    // Turns ran in order, one at a time; the second request saw the first exchange.
    const starts = recorder.ofType('turn.started').map((event) => event.turnId);
    expect(starts).toEqual([first.turnId, second.turnId, steered.turnId]);
    const requests = rig.server.requests.filter((entry) => entry.path === '/v1/messages');
    const secondBody = JSON.stringify(requests.find((entry) => entry.userText.includes('Second question'))?.body);
    expect(secondBody).toContain('First answer, slowly.');
    await recorder.close();
  });
});
