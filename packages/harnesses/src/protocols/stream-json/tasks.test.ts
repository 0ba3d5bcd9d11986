// Background tasks' ends (tasks.ts) on frames recorded from Claude Code 2.1.332, damaged the way the fuzzer
// found them (seed 2609360304, cases 12470 and 38186): the translation's own payloads must serialise
// whatever the harness puts in a task_notification.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolCallItem } from '@reins/core';
import { deeplyNested, readFixtureSync } from '@reins/testkit';
import { describe, expect, test } from 'vitest';
import { createClaudeTranslation, translateFrame } from '../../claude-code/translate.js';
import type { Emission } from './index.js';

const FIXTURES = fileURLToPath(new URL('../../claude-code/fixtures/', import.meta.url));

/** The SDK's frames of a 2.1.332 recording, with `damage` applied to its task_notification. */
function framesWith(name: string, damage: (notification: Record<string, unknown>) => void): unknown[] {
  const frames = readFixtureSync(join(FIXTURES, `${name}.2.1.332.jsonl`))
    .frames.filter((line) => line.dir === 'out')
    .map((line) => line.frame as Record<string, unknown>)
    .filter((frame) => !String(frame.type).startsWith('control_'));
  const notification = frames.find((frame) => frame.type === 'system' && frame.subtype === 'task_notification');
  expect(notification).toBeDefined();
  damage(notification as Record<string, unknown>);
  return frames;
}

/** The Task call's completion: what ends the background task. */
function taskCompletion(frames: unknown[]): ToolCallItem {
  const state = createClaudeTranslation();
  const emissions: Emission[] = frames.flatMap((frame) => translateFrame(state, frame));
  for (const { payload } of emissions) expect(() => JSON.stringify(payload)).not.toThrow();
  const done = emissions
    .map(({ payload }) => (payload.type === 'item.completed' ? payload.item : undefined))
    .find((item): item is ToolCallItem => item?.kind === 'tool_call' && item.tool.kind === 'subagent');
  expect(done).toBeDefined();
  return done as ToolCallItem;
}

const truncated = expect.objectContaining({ reinsTruncated: true });

describe('a task_notification with values nested too deep to send', () => {
  // Arrays too: a lookup keyed by a nested array stringifies it level by level (seed 2821956756, case 103572).
  test.each([
    ['subagent', 'object'],
    ['background-subagent', 'object'],
    ['subagent', 'array'],
    ['background-subagent', 'array'],
  ] as const)(
    '%s: a status nested 50,000 deep (%s) ends the task as failed, the status cut with a marker',
    (name, shape) => {
      const item = taskCompletion(framesWith(name, (frame) => (frame.status = deeplyNested(50_000, shape))));
      expect(item.status).toBe('failed');
      expect(item.output?.structured).toMatchObject({ status: truncated });
    },
  );

  test('a task_id nested too deep (the Task found by its tool_use_id) is cut the same way', () => {
    const item = taskCompletion(framesWith('subagent', (frame) => (frame.task_id = deeplyNested(50_000))));
    expect(item.status).toBe('completed');
    expect(item.output?.structured).toMatchObject({ taskId: truncated, status: 'completed' });
  });

  test("as recorded, the notification's own values are handed on unchanged", () => {
    const item = taskCompletion(framesWith('subagent', () => {}));
    expect(item.output?.structured).toMatchObject({ taskId: 'a19ac4c8d3af6b59e', status: 'completed' });
  });
});
