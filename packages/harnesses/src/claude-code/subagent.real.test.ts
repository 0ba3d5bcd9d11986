// Real Claude Code, Task subagents on both pins. A Task call is a tool_call of kind subagent; what the
// subagent does arrives with parent_tool_use_id and carries parentItemId = the Task call's item id.
// 2.1.197 (the previous pin) runs the subagent inside the turn. 2.1.332 (the current pin) runs it in the
// background: the turn ends while it works, its Task item completes when the task does, and the reply
// Claude Code then starts by itself is a turn of its own (docs/architecture/contract.md, "Events"); the
// session stays running by Claude Code's own state (session_state_changed) until all of it is over.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { type RecordedRequest, reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';
import type { ClaudeCodeSession } from './session.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

const TASK = {
  description: 'Inspect folder',
  prompt: 'Run echo from-sub and report.',
  subagent_type: 'general-purpose',
};

/** Which conversation a model request belongs to: the subagent's opens with its prompt. */
function conversation(request: RecordedRequest): 'main' | 'subagent' | undefined {
  const messages = (request.body as { messages?: Array<{ role?: string; content?: unknown }> } | undefined)?.messages;
  const first = JSON.stringify(messages?.find((message) => message.role === 'user')?.content ?? '');
  if (first.includes(TASK.prompt)) return 'subagent';
  if (first.includes('Delegate please')) return 'main';
  return undefined;
}

const isTask = (event: ReinsEvent) =>
  (event.type === 'item.started' || event.type === 'item.completed') &&
  event.item.kind === 'tool_call' &&
  event.item.tool.kind === 'subagent';

describe('claude-code real: subagents', () => {
  test('previous pin (2.1.197): the subagent runs inside the turn; its events carry parentItemId', async () => {
    rig = await claudeRig('subagent', { pin: 'previous' });
    rig.server.enqueue(reply().toolCall('Task', TASK));
    rig.server.enqueue(reply().shell('echo from-sub'));
    rig.server.enqueue(reply().text('The subagent saw from-sub.'));
    rig.server.enqueue(reply().text('All done.'));
    const { session, recorder } = await rig.open();
    const turn = await session.send('Delegate please');
    const done = await recorder.terminalOf(turn, 0, 60_000);
    expect(done.outcome).toEqual({ status: 'completed' });
    const events = recorder.turnEvents(turn.turnId);
    const task = events.find((event) => event.type === 'item.completed' && isTask(event));
    expect(task?.type === 'item.completed' && task.item.status).toBe('completed');
    const taskId = task?.type === 'item.completed' ? task.item.id : undefined;
    const inner = events.filter(
      (event) =>
        event.type === 'item.completed' && event.item.kind === 'tool_call' && event.item.tool.kind === 'command',
    );
    expect(inner.length).toBeGreaterThan(0);
    expect(inner.every((event) => event.parentItemId === taskId)).toBe(true);
    // The subagent's own text is forwarded in its lane, not mixed into the main thread.
    const subText = events.find(
      (event) =>
        event.type === 'item.completed' &&
        event.item.kind === 'agent_message' &&
        event.item.text === 'The subagent saw from-sub.',
    );
    expect(subText?.parentItemId).toBe(taskId);
    const mainText = events.find(
      (event) =>
        event.type === 'item.completed' && event.item.kind === 'agent_message' && event.item.text === 'All done.',
    );
    expect(mainText?.parentItemId).toBeUndefined();
    // 2.1.197 sends no state of its own: Reins infers it, running from the send, idle at the result.
    await recorder.waitFor((event) => event.type === 'session.status' && event.seq > done.seq, 'idle');
    expect(recorder.ofType('session.status').map((event) => [event.status, event.native?.method])).toEqual([
      ['running', undefined],
      ['idle', undefined],
    ]);
    await recorder.close();
  });

  test('current pin (2.1.332): a background subagent outlives its turn, is never cancelled, and its reply is its own turn', async () => {
    rig = await claudeRig('background-subagent');
    const main = (request: RecordedRequest) => conversation(request) === 'main';
    const sub = (request: RecordedRequest) => conversation(request) === 'subagent';
    rig.server.when(main, reply().toolCall('Task', TASK));
    rig.server.when(main, reply().text('Started a helper.'));
    rig.server.when(main, reply().text('All done.'));
    // The subagent's command waits for a file the test writes once the launching turn has ended.
    rig.server.when(sub, reply().shell('while [ ! -e go ]; do sleep 0.1; done; echo from-sub'));
    rig.server.when(sub, reply().text('The subagent saw from-sub.'));
    const { session, recorder } = await rig.open();
    const turn = await session.send('Delegate please');
    const done = await recorder.terminalOf(turn, 0, 60_000);
    expect(done.outcome).toEqual({ status: 'completed' });
    const taskStart = await recorder.waitFor((event) => event.type === 'item.started' && isTask(event), 'the Task');
    const taskId = taskStart.type === 'item.started' ? taskStart.item.id : '';
    expect(taskStart.turnId).toBe(turn.turnId);
    // The launching turn is over, the subagent still works: its Task item is open, the session busy.
    const shell = await recorder.waitFor(
      (event) => event.type === 'item.started' && event.item.kind === 'tool_call' && event.item.tool.kind === 'command',
      'the subagent command',
      60_000,
    );
    expect(shell.parentItemId).toBe(taskId);
    expect(recorder.events.some((event) => event.type === 'item.completed' && event.item.id === taskId)).toBe(false);
    expect((session as unknown as ClaudeCodeSession).liveBackgroundTasks).toBeGreaterThan(0);
    // Busy by Claude Code's own word: its state stays running past the turn's result (session_state_changed).
    expect(recorder.ofType('session.status').at(-1)).toMatchObject({
      status: 'running',
      native: { method: 'system/session_state_changed' },
    });

    await writeFile(join(rig.workdir, 'go'), '');
    const taskDone = await recorder.waitFor(
      (event) => event.type === 'item.completed' && event.item.id === taskId,
      'the Task to complete',
      60_000,
    );
    expect(taskDone.type === 'item.completed' && taskDone.item.status).toBe('completed');
    expect(taskDone.turnId).toBeNull();
    // Claude Code answers the task's notification in a turn it starts itself: one turn.started, one terminal.
    const own = await recorder.waitFor(
      (event) => event.type === 'turn.started' && event.turnId !== turn.turnId,
      'the turn Claude Code starts itself',
      60_000,
    );
    const ownTurn = { turnId: own.turnId ?? '' };
    const ownDone = await recorder.terminalOf(ownTurn, 0, 60_000);
    expect(ownDone.outcome).toEqual({ status: 'completed' });
    const input = recorder
      .turnEvents(ownTurn.turnId)
      .find((event) => event.type === 'item.completed' && event.item.kind === 'user_message');
    expect(input?.type === 'item.completed' && input.item).toMatchObject({
      origin: 'notification',
      text: expect.stringContaining('Inspect folder'),
    });
    const reply2 = recorder
      .turnEvents(ownTurn.turnId)
      .find((event) => event.type === 'item.completed' && event.item.kind === 'agent_message');
    expect(reply2?.type === 'item.completed' && reply2.item.kind === 'agent_message' && reply2.item.text).toBe(
      'All done.',
    );
    const idle = await recorder.waitFor(
      (event) => event.type === 'session.status' && event.status === 'idle' && event.seq > ownDone.seq,
      'idle once the background work is over',
    );
    // That idle is Claude Code's own, and the only one since the send: nothing said idle between the
    // launching turn's result and the end of the turn Claude Code started itself.
    expect(idle.native?.method).toBe('system/session_state_changed');
    expect(recorder.ofType('session.status').filter((event) => event.status === 'idle')).toEqual([idle]);
    expect((session as unknown as ClaudeCodeSession).liveBackgroundTasks).toBe(0);

    const events = recorder.events;
    // No item was cancelled: the harness cancelled nothing, and neither did Reins.
    expect(events.filter((event) => event.type === 'item.completed' && event.item.status === 'cancelled')).toEqual([]);
    // Everything the subagent did is linked to its Task item; once the launching turn ended it is in no turn.
    const subagent = events.filter((event) => event.native?.frame && laneOf(event.native.frame) !== undefined);
    expect(subagent.length).toBeGreaterThan(0);
    for (const event of subagent) expect(event.parentItemId).toBe(taskId);
    for (const event of subagent.filter((event) => event.seq > done.seq)) expect(event.turnId).toBeNull();
    const commands = events.filter(
      (event) =>
        event.type === 'item.completed' && event.item.kind === 'tool_call' && event.item.tool.kind === 'command',
    );
    expect(commands.map((event) => [event.parentItemId, event.type === 'item.completed' && event.item.status])).toEqual(
      [[taskId, 'completed']],
    );
    // Every result ended a turn: none is a passthrough.
    expect(
      events.filter((event) => event.type === 'passthrough' && event.native?.method?.startsWith('result')),
    ).toEqual([]);
    expect(recorder.ofType('turn.completed').map((event) => event.turnId)).toEqual([turn.turnId, ownTurn.turnId]);
    await recorder.close();
  });
});

function laneOf(frame: unknown): string | undefined {
  const lane = (frame as { parent_tool_use_id?: unknown } | null)?.parent_tool_use_id;
  return typeof lane === 'string' ? lane : undefined;
}
