// The ACP v2 dialect of the adapter (v2.ts), pure: v2 updates as the v1 updates translate.ts reads.
import { describe, expect, it } from 'vitest';
import { V2Updates, v1AnswerOf, v1InitializeOf, v1PermissionParamsOf } from './v2.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('ACP v2 updates as v1', () => {
  it('a whole agent_message after its chunks adds only the text they did not carry', () => {
    const v2 = new V2Updates();
    const chunk = (text: string) =>
      v2.translate({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text } }).updates;
    expect(chunk('Hel')).toHaveLength(1);
    expect(chunk('lo')).toHaveLength(1);
    const whole = v2.translate({
      sessionUpdate: 'agent_message',
      messageId: 'm1',
      content: [{ type: 'text', text: 'Hello there' }],
    });
    expect(whole.updates).toEqual([
      { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: ' there' } },
    ]);
    // The same upsert again (a replay or a repeat) says nothing new.
    expect(
      v2.translate({
        sessionUpdate: 'agent_message',
        messageId: 'm1',
        content: [{ type: 'text', text: 'Hello there' }],
      }).updates,
    ).toEqual([]);
  });

  it('state_update: idle ends the turn with its stop reason or error; running says nothing', () => {
    const v2 = new V2Updates();
    expect(v2.translate({ sessionUpdate: 'state_update', state: 'running' })).toEqual({ updates: [] });
    expect(v2.translate({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' }).idle).toEqual({
      stopReason: 'cancelled',
    });
    const error = { code: -32603, message: 'provider said 400' };
    expect(v2.translate({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error }).idle).toEqual({
      stopReason: 'error',
      error,
    });
  });

  it('tool content chunks gather into the full list; terminal output reaches the tool that shows it, once', () => {
    const v2 = new V2Updates();
    const opened = v2.translate({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't1',
      title: 'ls',
      kind: 'execute',
      status: 'in_progress',
      content: [{ type: 'terminal', terminalId: 'term-1' }],
    });
    expect(opened.updates[0]).toMatchObject({ sessionUpdate: 'tool_call_update', toolCallId: 't1' });
    const out1 = v2.translate({ sessionUpdate: 'terminal_output_chunk', terminalId: 'term-1', data: b64('a\n') });
    expect(out1.updates).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 't1',
        _meta: { terminal_output_delta: { data: 'a\n', terminal_id: 'term-1' } },
      },
    ]);
    // The exit snapshot repeats what streamed and adds one line: only that line, and the exit code.
    const exited = v2.translate({
      sessionUpdate: 'terminal_update',
      terminalId: 'term-1',
      output: { data: b64('a\nb\n') },
      exitStatus: { exitCode: 0, signal: null },
    });
    expect(exited.updates[0]).toMatchObject({
      _meta: {
        terminal_output_delta: { data: 'b\n' },
        terminal_exit: { exit_code: 0 },
      },
    });
    // Output of a terminal no tool shows has nowhere to go.
    expect(
      v2.translate({ sessionUpdate: 'terminal_output_chunk', terminalId: 'other', data: b64('x') }).updates,
    ).toEqual([]);
    const text = (value: string) => ({
      sessionUpdate: 'tool_call_content_chunk',
      toolCallId: 't2',
      content: { type: 'content', content: { type: 'text', text: value } },
    });
    v2.translate(text('one '));
    expect(v2.translate(text('two')).updates[0]).toMatchObject({
      content: [{ type: 'content', content: { type: 'text', text: 'one two' } }],
    });
  });

  it('plans, config options (configId), diffs (as locations) and permission requests take their v1 shape', () => {
    const v2 = new V2Updates();
    const entries = [{ content: 'step', priority: 'medium', status: 'pending' }];
    expect(
      v2.translate({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'p', entries } }).updates,
    ).toEqual([{ sessionUpdate: 'plan', entries }]);
    const option = {
      configId: 'model',
      name: 'Model',
      type: 'select',
      currentValue: 'a',
      options: [{ value: 'a', name: 'A' }],
    };
    expect(v2.translate({ sessionUpdate: 'config_option_update', configOptions: [option] }).updates[0]).toMatchObject({
      configOptions: [{ id: 'model', name: 'Model' }],
    });
    expect(v1AnswerOf({ sessionId: 's', configOptions: [option] })).toMatchObject({ configOptions: [{ id: 'model' }] });
    const diff = v2.translate({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'e1',
      content: [{ type: 'diff', changes: [{ operation: 'modify', path: '/w/a.txt' }] }],
    });
    expect(diff.updates[0]).toMatchObject({ content: [], locations: [{ path: '/w/a.txt' }] });
    expect(
      v1PermissionParamsOf(
        {
          sessionId: 's',
          title: 'Run ls?',
          subject: { type: 'tool_call', toolCall: { toolCallId: 't1' } },
          options: [],
        },
        1,
      ),
    ).toEqual({ sessionId: 's', toolCall: { toolCallId: 't1' }, options: [] });
    expect(v1PermissionParamsOf({ sessionId: 's', title: 'Go on?', options: [] }, 7)).toMatchObject({
      toolCall: { toolCallId: 'permission-7', title: 'Go on?' },
    });
  });

  it('initialize: v2 capabilities as v1 (resume, list and close are v2 baseline)', () => {
    const v1 = v1InitializeOf({
      protocolVersion: 2,
      info: { name: 'agent', version: '1.0.0' },
      capabilities: { session: { prompt: { image: {} } } },
    });
    expect(v1.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, audio: false },
      sessionCapabilities: { resume: {}, list: {}, close: {} },
    });
    expect(v1.agentInfo).toEqual({ name: 'agent', version: '1.0.0' });
  });
});
