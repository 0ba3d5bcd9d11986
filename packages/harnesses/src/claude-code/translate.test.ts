// The stream-json translation on frames recorded from Claude Code 2.1.197 (fixtures/*.2.1.197.jsonl, the
// version in each file's first line). Only what the Agent SDK hands over is fed: control frames are
// the SDK's business and never reach the translation.
import { join } from 'node:path';
import type { EventPayload, Item, ToolCallItem } from '@reins/core';
import { readFixtureSync } from '@reins/testkit';
import { describe, expect, test } from 'vitest';
import { FIXTURES_DIR } from '../../test/support/claude-rig.js';
import type { Emission, TranslationState } from '../protocols/stream-json/index.js';
import { createClaudeTranslation, translateFrame } from './translate.js';

function sdkFrames(name: string): unknown[] {
  const fixture = readFixtureSync(join(FIXTURES_DIR, `${name}.2.1.197.jsonl`));
  expect(fixture.header).toMatchObject({ harness: 'claude-code', version: '2.1.197' });
  return fixture.frames
    .filter((line) => line.dir === 'out' && typeof line.frame === 'object' && line.frame !== null)
    .map((line) => line.frame)
    .filter((frame) => !String((frame as { type?: unknown }).type).startsWith('control_'));
}

function replay(name: string, setup: (state: TranslationState) => void = () => {}): Emission[] {
  const state = createClaudeTranslation();
  setup(state);
  return sdkFrames(name).flatMap((frame) => translateFrame(state, frame));
}

const payloads = (emissions: Emission[]): EventPayload[] => emissions.map((emission) => emission.payload);
const completedItems = (emissions: Emission[]): Item[] =>
  payloads(emissions).flatMap((payload) => (payload.type === 'item.completed' ? [payload.item] : []));
const terminals = (emissions: Emission[]) =>
  payloads(emissions).filter(
    (payload): payload is Extract<EventPayload, { type: 'turn.completed' }> => payload.type === 'turn.completed',
  );

describe('stream-json translation on recorded Claude Code frames', () => {
  test('text turn: deltas, one agent message (no duplicate from the full assistant frame), usage and cost', () => {
    const emissions = replay('text-turn');
    const items = completedItems(emissions);
    const messages = items.filter((item) => item.kind === 'agent_message');
    expect(messages).toEqual([
      expect.objectContaining({ status: 'completed', text: 'Hello from the scripted model!' }),
    ]);
    const deltas = payloads(emissions).filter((payload) => payload.type === 'item.delta' && payload.kind === 'text');
    expect(deltas.map((payload) => (payload.type === 'item.delta' ? payload.text : '')).join('')).toBe(
      'Hello from the scripted model!',
    );
    // Every delta belongs to the item that completes with the full text.
    expect(new Set(deltas.map((payload) => (payload.type === 'item.delta' ? payload.itemId : '')))).toEqual(
      new Set([messages[0]?.id]),
    );
    expect(items.filter((item) => item.kind === 'reasoning')).toEqual([
      expect.objectContaining({ text: 'Thinking it over.' }),
    ]);
    const [done] = terminals(emissions);
    expect(done?.outcome).toEqual({ status: 'completed' });
    expect(done?.usage?.turn).toEqual({ input: 120, cachedInput: 0, cacheWrite: 0, output: 9 });
    expect(done?.usage?.costUsd).toMatchObject({ currency: 'USD', source: 'provider' });
    expect(done?.usage?.context?.window).toBeGreaterThan(0);
    expect(done?.stopReason).toBe('end_turn');
    const update = payloads(emissions).find((payload) => payload.type === 'session.updated');
    expect(update).toMatchObject({ apiKeySource: 'ANTHROPIC_API_KEY', mode: 'bypassPermissions' });
    expect(
      payloads(emissions).filter((payload) => payload.type === 'notice' && payload.kind === 'metered_key'),
    ).toHaveLength(1);
  });

  test('Bash: command item with readable and structured output, exit code 0', () => {
    const tools = completedItems(replay('bash-turn')).filter((item): item is ToolCallItem => item.kind === 'tool_call');
    expect(tools).toEqual([
      expect.objectContaining({
        status: 'completed',
        tool: { kind: 'command', name: 'Bash', title: 'echo hi-from-bash' },
        exitCode: 0,
        output: { text: 'hi-from-bash', structured: expect.objectContaining({ stdout: 'hi-from-bash' }) },
      }),
    ]);
  });

  test('Write: file_change with the path and kind add', () => {
    const [tool] = completedItems(replay('write-turn')).filter(
      (item): item is ToolCallItem => item.kind === 'tool_call',
    );
    expect(tool?.tool).toMatchObject({ kind: 'file_change', name: 'Write' });
    expect(tool?.changes).toEqual([{ path: '<tmp>/work/hello.txt', kind: 'add' }]);
  });

  test('interrupt mid-tool: the tool and the turn end cancelled; the marker is not user input', () => {
    const emissions = replay('interrupt-tool', (state) => {
      state.interruptRequested = false;
    });
    // terminal_reason aborted_tools alone makes the turn cancelled.
    expect(terminals(emissions).map((done) => done.outcome)).toEqual([
      { status: 'cancelled' },
      { status: 'completed' },
    ]);
    const flagged = replay('interrupt-tool', (state) => {
      state.interruptRequested = true;
    });
    const tool = completedItems(flagged).find((item) => item.kind === 'tool_call');
    expect(tool?.status).toBe('cancelled');
    expect(completedItems(emissions).some((item) => item.kind === 'user_message')).toBe(false);
  });

  test('interrupt mid-stream: cancelled outcome', () => {
    expect(terminals(replay('interrupt-stream'))[0]?.outcome).toEqual({ status: 'cancelled' });
  });

  test('compact_boundary: exactly one compaction item with the CLI numbers verbatim', () => {
    const compactions = completedItems(replay('compact')).filter((item) => item.kind === 'compaction');
    expect(compactions).toEqual([
      expect.objectContaining({ status: 'completed', trigger: 'manual', preTokens: 3040, postTokens: 587 }),
    ]);
  });

  test('provider errors: synthetic assistant messages map to codes, never to agent text', () => {
    const cases: Array<[string, string, Record<string, unknown> | undefined]> = [
      ['provider-500', 'provider_error', { kind: 'server_error' }],
      ['provider-401', 'auth_required', undefined],
      ['provider-429', 'provider_error', { kind: 'rate_limited' }],
    ];
    for (const [fixture, code, data] of cases) {
      const emissions = replay(fixture);
      const [done] = terminals(emissions);
      expect(done?.outcome.status).toBe('failed');
      if (done?.outcome.status !== 'failed') continue;
      expect(done.outcome.error.code).toBe(code);
      if (data) expect(done.outcome.error.data).toMatchObject(data);
      expect(completedItems(emissions).some((item) => item.kind === 'agent_message')).toBe(false);
      expect(payloads(emissions).some((payload) => payload.type === 'error')).toBe(true);
    }
  });

  test('model_not_found -> unsupported_model naming the model', () => {
    const [done] = terminals(replay('model-unsupported'));
    expect(done?.outcome.status === 'failed' && done.outcome.error).toMatchObject({
      code: 'unsupported_model',
      message: expect.stringContaining('unsupported model "claude-nonexistent-9"'),
    });
  });

  test('error_max_structured_output_retries -> structured_output_invalid', () => {
    const [done] = terminals(replay('structured-invalid'));
    expect(done?.outcome.status === 'failed' && done.outcome.error.code).toBe('structured_output_invalid');
  });

  test('structured output valid: the raw value is handed on for core to validate', () => {
    expect(terminals(replay('structured-valid'))[0]?.structuredOutput).toEqual({ answer: 'forty-two', n: 42 });
  });

  test('a declined tool settles as declined', () => {
    const frames = sdkFrames('ask-deny');
    const toolUse = frames.find(
      (frame) => (frame as { type?: string; message?: { content?: Array<{ type: string }> } }).type === 'assistant',
    ) as { message: { content: Array<{ type: string; id?: string }> } };
    const id = toolUse.message.content.find((block) => block.type === 'tool_use')?.id as string;
    const emissions = replay('ask-deny', (state) => state.declined.add(id));
    expect(completedItems(emissions).find((item) => item.id === id)?.status).toBe('declined');
  });

  test('unknown frames pass through; a synthetic message without error is the CLI speaking', () => {
    const state = createClaudeTranslation();
    expect(translateFrame(state, { type: 'brand_new_frame', x: 1 })).toEqual([
      { payload: { type: 'passthrough', frame: { type: 'brand_new_frame', x: 1 } } },
    ]);
    expect(translateFrame(state, 'not an object')[0]?.payload.type).toBe('passthrough');
    const said = translateFrame(state, {
      type: 'assistant',
      message: {
        id: 'synthetic-1',
        model: '<synthetic>',
        content: [{ type: 'text', text: 'Not enough messages to compact.' }],
      },
      parent_tool_use_id: null,
    });
    expect(said.map((emission) => emission.payload.type)).toEqual(['item.started', 'item.completed']);
  });

  test('Task subagent (recorded): inner items carry parentItemId = the Task call, main-thread items none', () => {
    const emissions = replay('subagent');
    const task = completedItems(emissions).find(
      (item): item is ToolCallItem => item.kind === 'tool_call' && item.tool.kind === 'subagent',
    );
    expect(task?.tool).toMatchObject({ name: 'Task', title: 'Inspect folder' });
    const lane = emissions.filter((emission) => emission.parentItemId === task?.id).map((emission) => emission.payload);
    expect(lane.some((payload) => payload.type === 'item.completed' && payload.item.kind === 'tool_call')).toBe(true);
    expect(
      lane.some(
        (payload) =>
          payload.type === 'item.completed' &&
          payload.item.kind === 'agent_message' &&
          payload.item.text === 'The subagent saw from-sub.',
      ),
    ).toBe(true);
    const main = emissions.find(
      (emission) =>
        emission.payload.type === 'item.completed' &&
        emission.payload.item.kind === 'agent_message' &&
        emission.payload.item.text === 'All done.',
    );
    expect(main?.parentItemId).toBeUndefined();
  });

  test('TodoWrite becomes a plan (older CLIs and Amp; 2.1.197 offers TaskCreate/TaskUpdate instead)', () => {
    const state = createClaudeTranslation();
    const plan = translateFrame(state, {
      type: 'assistant',
      message: {
        id: 'msg_3',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_todo',
            name: 'TodoWrite',
            input: { todos: [{ content: 'Write tests', status: 'in_progress', activeForm: 'Writing tests' }] },
          },
        ],
      },
      parent_tool_use_id: null,
    });
    expect(plan[0]?.payload).toMatchObject({
      type: 'item.started',
      item: { kind: 'plan', entries: [{ text: 'Write tests', status: 'in_progress' }] },
    });
    const planDone = translateFrame(state, {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_todo', content: 'ok' }] },
      parent_tool_use_id: null,
    });
    expect(planDone[0]?.payload).toMatchObject({ type: 'item.completed', item: { kind: 'plan', status: 'completed' } });
  });
});
