// The stream-json translation of background work, on frames recorded from Claude Code 2.1.332
// (fixtures/*.2.1.332.jsonl): a Task subagent launched in the background stays open past its tool
// result and its turn, completes at its task_notification, and what it does after the turn is marked
// background (outside any turn). Two recordings: `subagent` (the task ends before the turn does) and
// `background-subagent` (the turn ends first; Claude Code then starts a turn of its own with its own result).
import { join } from 'node:path';
import type { EventPayload, ToolCallItem } from '@reins/core';
import { readFixtureSync } from '@reins/testkit';
import { describe, expect, test } from 'vitest';
import { FIXTURES_DIR } from '../../test/support/claude-rig.js';
import { type Emission, openBackgroundItems, type TranslationState } from '../protocols/stream-json/index.js';
import { createClaudeTranslation, translateFrame } from './translate.js';

/** What the Agent SDK hands over (control frames are its own business). */
function sdkFrames(name: string): unknown[] {
  const fixture = readFixtureSync(join(FIXTURES_DIR, `${name}.2.1.332.jsonl`));
  expect(fixture.header).toMatchObject({ harness: 'claude-code', version: '2.1.332' });
  return fixture.frames
    .filter((line) => line.dir === 'out' && typeof line.frame === 'object' && line.frame !== null)
    .map((line) => line.frame)
    .filter((frame) => !String((frame as { type?: unknown }).type).startsWith('control_'));
}

interface Step {
  frame: unknown;
  emissions: Emission[];
  /** Open background items right after this frame (what the adapter keeps past a turn's end). */
  openBackground: string[];
}

function replay(name: string): { state: TranslationState; steps: Step[]; emissions: Emission[] } {
  const state = createClaudeTranslation();
  const steps = sdkFrames(name).map((frame) => ({
    frame,
    emissions: translateFrame(state, frame),
    openBackground: openBackgroundItems(state),
  }));
  return { state, steps, emissions: steps.flatMap((step) => step.emissions) };
}

const isType = (frame: unknown, type: string, subtype?: string) => {
  const record = frame as { type?: unknown; subtype?: unknown };
  return record.type === type && (subtype === undefined || record.subtype === subtype);
};
const payloads = (emissions: Emission[]): EventPayload[] => emissions.map((emission) => emission.payload);
const completions = (emissions: Emission[]) =>
  emissions.flatMap((emission) =>
    emission.payload.type === 'item.completed' ? [{ ...emission, item: emission.payload.item }] : [],
  );

describe('stream-json translation of Claude Code 2.1.332 background subagents (recorded)', () => {
  test('the turn ends while the subagent works: nothing is cancelled, the Task completes at its notification', () => {
    const { steps, emissions, state } = replay('background-subagent');
    const results = steps.filter((step) => isType(step.frame, 'result'));
    expect(results).toHaveLength(2);
    const [first, second] = results as [Step, Step];
    // The Task's "Async agent launched" result does not complete it.
    const launch = steps.find(
      (step) =>
        isType(step.frame, 'user') &&
        JSON.stringify(step.frame).includes('async_launched') &&
        JSON.stringify(step.frame).includes('toolu_scripted_1'),
    );
    expect(payloads(launch?.emissions ?? []).map((payload) => payload.type)).toEqual(['passthrough']);
    // The launch was announced once, by task_started (is_backgrounded: true).
    const notices = payloads(emissions).filter((payload) => payload.type === 'notice' && payload.kind === 'info');
    expect(notices).toEqual([
      expect.objectContaining({ message: expect.stringContaining('"Inspect folder" runs in the background') }),
    ]);
    // At the end of the launching turn the Task and the subagent's running command stay open.
    expect(first.openBackground).toEqual(['toolu_scripted_1', 'toolu_scripted_4']);
    expect(payloads(first.emissions).map((payload) => payload.type)).toEqual(['usage.updated', 'turn.completed']);
    // After it, the subagent's command result still matches its call (not a passthrough) and is background work.
    const after = steps.slice(steps.indexOf(first) + 1, steps.indexOf(second));
    const settled = completions(after.flatMap((step) => step.emissions));
    expect(settled.map((done) => [done.item.id, done.item.status, done.parentItemId, done.background])).toEqual([
      ['toolu_scripted_4', 'completed', 'toolu_scripted_1', true],
      ['msg_scripted_6:0', 'completed', 'toolu_scripted_1', true],
      ['toolu_scripted_1', 'completed', undefined, true],
      // The reply Claude Code starts by itself is main-thread work, not the subagent's.
      ['msg_scripted_7:0', 'completed', undefined, undefined],
    ]);
    const task = settled.find((done) => done.item.id === 'toolu_scripted_1')?.item as ToolCallItem;
    expect(task).toMatchObject({
      tool: { kind: 'subagent', name: 'Task', title: 'Inspect folder' },
      output: { text: 'The subagent saw from-sub.', structured: expect.objectContaining({ status: 'completed' }) },
    });
    expect(
      after.some((step) =>
        payloads(step.emissions).some((payload) => payload.type === 'passthrough' && isType(step.frame, 'user')),
      ),
    ).toBe(false);
    // The level signal: running while the task lives, idle once it is gone.
    const levels = payloads(emissions).filter((payload) => payload.type === 'session.status');
    expect(levels.map((payload) => (payload.type === 'session.status' ? payload.status : ''))).toEqual([
      'running',
      'idle',
    ]);
    // Nothing was cancelled; nothing is left open; the ended task is the input of the turn Claude Code starts.
    expect(completions(emissions).filter((done) => done.item.status === 'cancelled')).toEqual([]);
    expect(second.openBackground).toEqual([]);
    expect(state.tasks.ended).toEqual(['The background task "Inspect folder" completed: The subagent saw from-sub.']);
  });

  test('per-turn usage comes from model_usage_since_last_result (subagents included), not the main loop alone', () => {
    const { steps } = replay('background-subagent');
    const terminals = steps
      .flatMap((step) => payloads(step.emissions))
      .filter(
        (payload): payload is Extract<EventPayload, { type: 'turn.completed' }> => payload.type === 'turn.completed',
      );
    // result.usage says 24767 / 32 (the main loop); the turn's calls, subagent included, were 31877 / 59.
    expect(terminals.map((done) => done.usage?.turn)).toEqual([
      { input: 31877, cachedInput: 0, cacheWrite: 0, output: 59 },
      { input: 20551, cachedInput: 0, cacheWrite: 0, output: 10 },
    ]);
    expect(terminals.map((done) => done.outcome.status)).toEqual(['completed', 'completed']);
  });

  test('a background task that ends before its turn: the Task completes at its notification, inside the turn', () => {
    const { steps, emissions } = replay('subagent');
    const notification = steps.find((step) => isType(step.frame, 'system', 'task_notification'));
    expect(
      completions(notification?.emissions ?? []).map((done) => [done.item.id, done.item.status, done.background]),
    ).toEqual([['toolu_scripted_1', 'completed', undefined]]);
    const subText = completions(emissions).find(
      (done) => done.item.kind === 'agent_message' && done.item.text === 'The subagent saw from-sub.',
    );
    expect(subText?.parentItemId).toBe('toolu_scripted_1');
    expect(subText?.background).toBeUndefined();
    // One result, one terminal; the Task completed once.
    expect(payloads(emissions).filter((payload) => payload.type === 'turn.completed')).toHaveLength(1);
    expect(completions(emissions).filter((done) => done.item.id === 'toolu_scripted_1')).toHaveLength(1);
    expect(emissions.some((emission) => emission.background)).toBe(false);
  });

  test('a task moved to the background later (task_updated), and an ending status this version does not know', () => {
    for (const [status, expected] of [
      ['stopped', 'cancelled'],
      ['vanished', 'failed'],
      ['__proto__', 'failed'],
    ] as const) {
      const state = createClaudeTranslation();
      const task = { type: 'tool_use', id: 'toolu_t', name: 'Task', input: { description: 'Look around' } };
      translateFrame(state, { type: 'assistant', message: { id: 'm1', content: [task] }, parent_tool_use_id: null });
      translateFrame(state, {
        type: 'system',
        subtype: 'task_started',
        task_id: 'a1',
        tool_use_id: 'toolu_t',
        description: 'Look around',
      });
      expect(state.tasks.background.size).toBe(0);
      const moved = translateFrame(state, {
        type: 'system',
        subtype: 'task_updated',
        task_id: 'a1',
        patch: { is_backgrounded: true },
      });
      // Started in the foreground, moved later: from here it is background work.
      expect(payloads(moved)[0]).toMatchObject({ type: 'notice', kind: 'info' });
      const launched = translateFrame(state, {
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_t', content: 'Async agent launched' }],
        },
        parent_tool_use_id: null,
        tool_use_result: { status: 'async_launched', agentId: 'a1' },
      });
      // The Task call's own result does not complete it.
      expect(payloads(launched).map((payload) => payload.type)).toEqual(['passthrough']);
      const ended = translateFrame(state, {
        type: 'system',
        subtype: 'task_notification',
        task_id: 'a1',
        tool_use_id: 'toolu_t',
        status,
        summary: '',
      });
      expect(completions(ended).map((done) => done.item.status)).toEqual([expected]);
    }
  });

  test('2.1.197 foreground subagents are untouched: task frames stay notes, the Task completes by its own result', () => {
    const state = createClaudeTranslation();
    const frames = readFixtureSync(join(FIXTURES_DIR, 'subagent.2.1.197.jsonl'))
      .frames.filter((line) => line.dir === 'out' && typeof line.frame === 'object' && line.frame !== null)
      .map((line) => line.frame)
      .filter((frame) => !String((frame as { type?: unknown }).type).startsWith('control_'));
    const emissions = frames.flatMap((frame) => translateFrame(state, frame));
    const task = completions(emissions).find((done) => done.item.id === 'toolu_scripted_1');
    expect(task?.item).toMatchObject({
      status: 'completed',
      output: { text: expect.stringContaining('The subagent saw from-sub.') },
    });
    expect(state.tasks.background.size).toBe(0);
    expect(emissions.some((emission) => emission.background)).toBe(false);
  });
});
