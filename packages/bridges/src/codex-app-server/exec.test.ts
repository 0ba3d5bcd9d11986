// `codex exec` in front of any harness, the pure parts: the command line @openai/codex-sdk passes, and
// the JSONL events printed from app-server notifications (shapes of the real `codex exec` 0.171.0).
import { describe, expect, it } from 'vitest';
import { execRequestOf } from './exec-args.js';
import { ExecEventTranslator } from './exec-events.js';

describe('execRequestOf', () => {
  it("reads the SDK's command line, options before and after `resume`", () => {
    expect(
      execRequestOf([
        '--experimental-json',
        '--model',
        'sonnet',
        '--cd',
        '/w',
        '--skip-git-repo-check',
        '--output-schema',
        '/tmp/s.json',
        '--config',
        'approval_policy="never"',
        'resume',
        'thread-1',
        '--image',
        '/a.png',
      ]),
    ).toEqual({
      json: true,
      model: 'sonnet',
      cwd: '/w',
      outputSchemaFile: '/tmp/s.json',
      config: ['approval_policy="never"'],
      resume: 'thread-1',
      images: ['/a.png'],
      ignored: ['--skip-git-repo-check'],
    });
    expect(execRequestOf(['say hi'])).toEqual({ json: false, images: [], config: [], ignored: [], prompt: 'say hi' });
    // A one-word prompt named like an Object.prototype member is still the prompt.
    for (const word of ['constructor', 'toString'])
      expect(execRequestOf([word])).toEqual({ json: false, images: [], config: [], ignored: [], prompt: word });
  });

  it('refuses what it cannot serve, by name', () => {
    expect(() => execRequestOf(['--oss'])).toThrow(/--oss: is not an option of `codex exec`/);
    expect(() => execRequestOf(['resume'])).toThrow(/names the thread to continue/);
    expect(() => execRequestOf(['--model'])).toThrow(/--model: needs a value/);
    expect(() => execRequestOf(['a', 'b'])).toThrow(/takes one prompt/);
  });
});

describe('ExecEventTranslator', () => {
  it('prints a turn as codex exec does: numbered items, commands started and completed, usage per turn', () => {
    const translator = new ExecEventTranslator();
    const events = [
      translator.threadStarted('t1'),
      ...translator.translate('turn/started', { turn: { id: 'turn-1' } }),
      ...translator.translate('item/started', { item: { type: 'userMessage', id: 'u' } }),
      ...translator.translate('item/started', {
        item: {
          type: 'commandExecution',
          id: 'c',
          command: 'echo hi',
          aggregatedOutput: null,
          exitCode: null,
          status: 'inProgress',
        },
      }),
      ...translator.translate('item/completed', {
        item: {
          type: 'commandExecution',
          id: 'c',
          command: 'echo hi',
          aggregatedOutput: 'hi\n',
          exitCode: 0,
          status: 'completed',
        },
      }),
      ...translator.translate('item/started', { item: { type: 'agentMessage', id: 'm', text: '' } }),
      ...translator.translate('item/completed', { item: { type: 'agentMessage', id: 'm', text: 'done' } }),
      ...translator.translate('thread/tokenUsage/updated', {
        tokenUsage: { total: { inputTokens: 100, cachedInputTokens: 10, outputTokens: 7, reasoningOutputTokens: 2 } },
      }),
      ...translator.translate('turn/completed', { turn: { id: 'turn-1', status: 'completed' } }),
    ];
    expect(events).toEqual([
      { type: 'thread.started', thread_id: 't1' },
      { type: 'turn.started' },
      {
        type: 'item.started',
        item: {
          id: 'item_0',
          type: 'command_execution',
          command: 'echo hi',
          aggregated_output: '',
          exit_code: null,
          status: 'in_progress',
        },
      },
      {
        type: 'item.completed',
        item: {
          id: 'item_0',
          type: 'command_execution',
          command: 'echo hi',
          aggregated_output: 'hi\n',
          exit_code: 0,
          status: 'completed',
        },
      },
      { type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text: 'done' } },
      {
        type: 'turn.completed',
        usage: {
          input_tokens: 100,
          cached_input_tokens: 10,
          cache_write_input_tokens: 0,
          output_tokens: 7,
          reasoning_output_tokens: 2,
        },
      },
    ]);
    expect(translator.lastMessage).toBe('done');
    // The next turn's usage is what it added.
    translator.translate('turn/started', {});
    translator.translate('thread/tokenUsage/updated', { tokenUsage: { total: { inputTokens: 150, outputTokens: 9 } } });
    expect(translator.translate('turn/completed', { turn: { status: 'completed' } })[0]?.usage).toMatchObject({
      input_tokens: 50,
      output_tokens: 2,
    });
  });

  it('ends a failed or interrupted turn with turn.failed and its message; retried errors stay quiet', () => {
    const translator = new ExecEventTranslator();
    expect(translator.translate('error', { error: { message: 'busy' }, willRetry: true })).toEqual([]);
    expect(translator.translate('error', { error: { message: 'gone' }, willRetry: false })).toEqual([
      { type: 'error', message: 'gone' },
    ]);
    expect(translator.translate('turn/completed', { turn: { status: 'failed', error: { message: 'gone' } } })).toEqual([
      { type: 'turn.failed', error: { message: 'gone' } },
    ]);
    expect(translator.translate('turn/completed', { turn: { status: 'interrupted', error: null } })).toEqual([
      { type: 'turn.failed', error: { message: 'turn interrupted' } },
    ]);
  });
});
