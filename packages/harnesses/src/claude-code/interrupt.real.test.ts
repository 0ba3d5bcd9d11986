// Real Claude Code (the current pin): interrupt mid-stream and mid-tool. The turn ends cancelled (the
// CLI reports aborted_streaming / aborted_tools) and the same session takes the next turn. A turn the CLI
// accepted whose model request then hangs ends by the stall watchdog (issue 14 saw no terminal after
// 45 s); the CLI's own late result for it does not end the next turn.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

const LONG = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');

describe('claude-code real: interrupt', () => {
  test('interrupt mid-stream: cancelled, session usable after', async () => {
    rig = await claudeRig('interrupt-stream');
    rig.server.enqueue(reply().text(LONG).delayMs(400));
    rig.server.enqueue(reply().text('Back again.'));
    const { session, recorder } = await rig.open();
    const first = await session.send('Talk for a while');
    await recorder.waitFor((event) => event.type === 'item.delta' && event.turnId === first.turnId, 'first text delta');
    await session.interrupt();
    const cancelled = await recorder.terminalOf(first);
    expect(cancelled.outcome).toEqual({ status: 'cancelled' });
    // The interrupt marker is not shown as user input.
    const userItems = recorder.ofType('item.completed').filter((event) => event.item.kind === 'user_message');
    expect(
      userItems.every((event) => event.item.kind === 'user_message' && !event.item.text.includes('interrupted')),
    ).toBe(true);

    const second = await session.send('Are you there?');
    const done = await recorder.terminalOf(second);
    expect(done.outcome).toEqual({ status: 'completed' });
    const text = recorder
      .turnEvents(second.turnId)
      .find((event) => event.type === 'item.completed' && event.item.kind === 'agent_message');
    expect(text?.type === 'item.completed' && text.item.kind === 'agent_message' && text.item.text).toBe('Back again.');
    await recorder.close();
  });

  test('a silent model request: the stall watchdog ends the turn; the late result ends nothing', async () => {
    rig = await claudeRig('stalled-request');
    rig.server.enqueue(reply().stall());
    rig.server.enqueue(reply().text('Back again.'));
    const { session, recorder } = await rig.open({ stallTimeoutMs: 2000 });
    const first = await session.send('Hello?');
    const stalled = await recorder.terminalOf(first, 0, 20_000);
    expect(stalled.outcome).toMatchObject({ status: 'failed', error: { code: 'timeout', retryable: true } });
    const second = await session.send('Are you there?');
    const done = await recorder.terminalOf(second, 0, 30_000);
    expect(done.outcome).toEqual({ status: 'completed' });
    const text = recorder
      .turnEvents(second.turnId)
      .filter((event) => event.type === 'item.completed' && event.item.kind === 'agent_message');
    expect(
      text.map((event) => event.type === 'item.completed' && event.item.kind === 'agent_message' && event.item.text),
    ).toEqual(['Back again.']);
    expect(
      recorder.events.filter((event) => event.type === 'passthrough' && event.native?.method?.startsWith('result')),
    ).toEqual([]);
    await recorder.close();
  });

  test('interrupt mid-tool: the command is stopped, cancelled, session usable after', async () => {
    rig = await claudeRig('interrupt-tool');
    rig.server.enqueue(reply().shell('touch tool-started && sleep 30'));
    rig.server.enqueue(reply().text('Still here.'));
    const { session, recorder } = await rig.open();
    const first = await session.send('Sleep');
    const started = await recorder.waitFor(
      (event) => event.type === 'item.started' && event.item.kind === 'tool_call',
      'the tool call to start',
    );
    // Interrupt once the command really runs (it leaves a marker before sleeping).
    const marker = join(rig.workdir, 'tool-started');
    const deadline = Date.now() + 15_000;
    while (!existsSync(marker)) {
      if (Date.now() > deadline) throw new Error('the command never started');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await session.interrupt();
    const cancelled = await recorder.terminalOf(first, 0, 15_000);
    expect(cancelled.outcome).toEqual({ status: 'cancelled' });
    const tool = recorder
      .turnEvents(first.turnId)
      .find(
        (event) =>
          event.type === 'item.completed' && started.type === 'item.started' && event.item.id === started.item.id,
      );
    expect(tool?.type === 'item.completed' && tool.item.status).toBe('cancelled');

    const second = await session.send('Still there?');
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });
});
