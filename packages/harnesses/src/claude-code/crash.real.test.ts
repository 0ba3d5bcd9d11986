// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332): the CLI killed mid-turn ends the turn failed with process_exited (no hang),
// and closing a session leaves no process of its group behind.
import { liveProcessCount } from '@reins/harnesses';
import { ProcessGroupWatch, reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: process', () => {
  test('child killed mid-turn -> failed with process_exited', async () => {
    rig = await claudeRig('killed-mid-turn');
    rig.server.enqueue(reply().text('this never finishes').stall());
    const watch = new ProcessGroupWatch();
    const { session, recorder } = await rig.open();
    watch.sample();
    const turn = await session.send('hang please');
    await recorder.waitFor((event) => event.type === 'item.delta', 'the reply to start streaming');
    expect(watch.groupCount).toBeGreaterThan(0);
    // Kill the CLI itself (the leader of its group), as a crash would.
    for (const leader of watch.survivors().filter((stat) => stat.pid === stat.pgid))
      process.kill(leader.pid, 'SIGKILL');
    const done = await recorder.terminalOf(turn, 0, 15_000);
    expect(done.outcome.status).toBe('failed');
    expect(done.outcome.status === 'failed' && done.outcome.error.code).toBe('process_exited');
    // The adapter closes the session itself when the CLI dies.
    const closed = await recorder.waitFor((event) => event.type === 'session.closed', 'session.closed');
    expect(closed).toMatchObject({ reason: 'process_exited' });
    await recorder.close();
  });

  test('close() leaves no orphan', async () => {
    rig = await claudeRig('close-no-orphan');
    rig.server.enqueue(reply().shell('sleep 60'));
    const watch = new ProcessGroupWatch();
    const { session, recorder } = await rig.open();
    const turn = await session.send('sleep');
    await recorder.waitFor(
      (event) => event.type === 'item.started' && event.item.kind === 'tool_call',
      'the tool call',
    );
    watch.sample();
    await recorder.close();
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'cancelled' });
    expect(watch.survivors()).toEqual([]);
    expect(liveProcessCount()).toBe(0);
  });
});
