// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332): effort is a launch-time setting. setEffort drains, closes and resumes
// the same conversation in a new process (applied: 'restart'): the next request carries the history.
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: effort', () => {
  test('setEffort restarts into the same conversation', async () => {
    rig = await claudeRig('effort-restart');
    rig.server.enqueue(reply().text('Noted: the colour is teal.'));
    const { session, recorder } = await rig.open();
    const first = await session.send('The colour is teal');
    await recorder.terminalOf(first);
    const before = session.nativeSessionId;
    expect(await session.setEffort('low')).toEqual({ applied: 'restart' });
    expect(session.nativeSessionId).toBe(before);
    rig.server.enqueue(reply().text('It was teal.'));
    const second = await session.send('Which colour?');
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    const last = rig.server.requests.filter((entry) => entry.path === '/v1/messages').at(-1);
    // 2.1.197 sends the effort as output_config.effort: the default before, the new one after.
    const efforts = rig.server.requests
      .filter((entry) => entry.path === '/v1/messages')
      .map((entry) => (entry.body as { output_config?: { effort?: string } }).output_config?.effort);
    expect(efforts.at(-1)).toBe('low');
    expect(efforts[0]).not.toBe('low');
    expect(JSON.stringify(last?.body)).toContain('Noted: the colour is teal.');
    expect(recorder.ofType('session.updated').some((event) => event.effort === 'low')).toBe(true);
    await recorder.close();
  });
});
