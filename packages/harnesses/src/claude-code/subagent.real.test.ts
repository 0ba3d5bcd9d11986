// Real Claude Code 2.1.197: a Task (subagent) call is a tool_call of kind subagent; what the subagent
// does arrives with parent_tool_use_id and carries parentItemId = the Task call's item id.
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from './test-helpers.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: subagents', () => {
  // SKIPPED on the pinned 2.1.332, which runs Task subagents in the BACKGROUND (task_started.is_backgrounded,
  // the Task result comes at once, the main turn ends while the subagent works): the adapter does not handle
  // background work yet, so the subagent's Bash item ends `cancelled` without its parentItemId and this test
  // fails. It passed on 2.1.197. Re-enable (and extend) it when the adapter handles background tasks
  // (issue 15, item 2).
  test.skip('Task subagent: events inside carry parentItemId', async () => {
    rig = await claudeRig('subagent');
    rig.server.enqueue(
      reply().toolCall('Task', {
        description: 'Inspect folder',
        prompt: 'Run echo from-sub and report.',
        subagent_type: 'general-purpose',
      }),
    );
    rig.server.enqueue(reply().shell('echo from-sub'));
    rig.server.enqueue(reply().text('The subagent saw from-sub.'));
    rig.server.enqueue(reply().text('All done.'));
    const { session, recorder } = await rig.open();
    const turn = await session.send('Delegate please');
    const done = await recorder.terminalOf(turn, 0, 60_000);
    expect(done.outcome).toEqual({ status: 'completed' });
    const task = recorder
      .turnEvents(turn.turnId)
      .find(
        (event) =>
          event.type === 'item.completed' && event.item.kind === 'tool_call' && event.item.tool.kind === 'subagent',
      );
    expect(task?.type === 'item.completed' && task.item.status).toBe('completed');
    const taskId = task?.type === 'item.completed' ? task.item.id : undefined;
    const inner = recorder
      .turnEvents(turn.turnId)
      .filter(
        (event) =>
          event.type === 'item.completed' && event.item.kind === 'tool_call' && event.item.tool.kind === 'command',
      );
    expect(inner.length).toBeGreaterThan(0);
    expect(inner.every((event) => event.parentItemId === taskId)).toBe(true);
    // The subagent's own text is forwarded in its lane, not mixed into the main thread.
    const subText = recorder
      .turnEvents(turn.turnId)
      .find(
        (event) =>
          event.type === 'item.completed' &&
          event.item.kind === 'agent_message' &&
          event.item.text === 'The subagent saw from-sub.',
      );
    expect(subText?.parentItemId).toBe(taskId);
    const mainText = recorder
      .turnEvents(turn.turnId)
      .find(
        (event) =>
          event.type === 'item.completed' && event.item.kind === 'agent_message' && event.item.text === 'All done.',
      );
    expect(mainText?.parentItemId).toBeUndefined();
    await recorder.close();
  });
});
