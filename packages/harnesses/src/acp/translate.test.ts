// Translation of recorded ACP frames (fixtures/, recorded from the pinned real agents) and of the
// edge cases the agents do not show on demand. Pure: no process.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EventPayload, Item, ToolCallItem } from '@reins/core';
import { ReinsError } from '@reins/core';
import { type Fixture, readFixture } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { codexAcpStatusChunk } from './presets/codex-acp/preset.js';
import { copilotPreset, copilotStatusChunk } from './presets/copilot/preset.js';
import { geminiPreset, geminiThoughtChunk } from './presets/gemini/preset.js';
import { opencodeHidesModel } from './presets/opencode/preset.js';
import { classifyPromptError, quotaTokens } from './session.js';
import {
  beginTurn,
  createTranslateState,
  endTurn,
  finishReplay,
  outcomeOf,
  pickPermissionOption,
  providerFailure,
  type TranslateOptions,
  toolKindOf,
  translatePermission,
  translateUpdate,
  wholeFileDiff,
} from './translate.js';
import type { PromptResponse, SessionUpdate } from './wire.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
/** Pinned agent versions of the recorded fixtures (fixtures/<agent>/<behaviour>.<version>.jsonl). */
const VERSIONS: Record<string, string> = { 'claude-agent-acp': '0.23.1', gemini: '0.61.0' };
const load = (agent: string, behaviour: string) =>
  readFixture(`${FIXTURES}${agent}/${behaviour}.${VERSIONS[agent]}.jsonl`);

interface Replayed {
  /** Payloads per turn (index 0 = outside any turn: setup and history replay). */
  turns: EventPayload[][];
  outcomes: string[];
  stopReasons: string[];
}

type Frame = {
  id?: number;
  method?: string;
  params?: { update?: SessionUpdate; toolCall?: Record<string, unknown>; options?: never[] };
  result?: unknown;
  error?: unknown;
};

/** Feeds a fixture through the translation the way the session does (turn = prompt request .. answer). */
function replay(fixture: Fixture, options: TranslateOptions = {}): Replayed {
  const state = createTranslateState(options);
  const turns: EventPayload[][] = [[]];
  const outcomes: string[] = [];
  const stopReasons: string[] = [];
  let prompt: number | undefined;
  let permission = 0;
  for (const { dir, frame } of fixture.frames) {
    const f = frame as Frame;
    if (dir === 'in' && f.method === 'session/prompt' && typeof f.id === 'number') {
      prompt = f.id;
      (turns.at(-1) as EventPayload[]).push(...beginTurn(state));
      turns.push([]);
      continue;
    }
    const current = turns.at(-1) as EventPayload[];
    if (dir !== 'out') continue;
    if (f.method === 'session/update' && f.params?.update) {
      current.push(...translateUpdate(state, f.params.update, { inTurn: prompt !== undefined }));
    } else if (f.method === 'session/request_permission' && f.params?.toolCall) {
      current.push(
        ...translatePermission(state, `perm_${++permission}`, f.params.toolCall, f.params.options ?? []).payloads,
      );
    } else if (prompt !== undefined && f.id === prompt && f.method === undefined) {
      current.push(...endTurn(state));
      if (f.error) outcomes.push('failed');
      else {
        const answer = f.result as PromptResponse;
        outcomes.push(outcomeOf(answer.stopReason).status);
        stopReasons.push(answer.stopReason);
      }
      prompt = undefined;
    }
  }
  (turns[0] as EventPayload[]).push(...finishReplay(state));
  return { turns, outcomes, stopReasons };
}

const completedItems = (payloads: EventPayload[]): Item[] =>
  payloads.flatMap((payload) => (payload.type === 'item.completed' ? [payload.item] : []));
const started = (payloads: EventPayload[]) => payloads.filter((payload) => payload.type === 'item.started');

describe('recorded fixtures', () => {
  const names = (readdirSync(FIXTURES, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.jsonl'))
    .sort();

  it.each(names)(
    '%s: every item that starts completes once, and the header names the agent and version',
    async (name) => {
      const fixture = await readFixture(`${FIXTURES}${name}`);
      expect(fixture.header).toMatchObject({
        harness: expect.any(String),
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      });
      const options = fixture.header.harness === 'gemini' ? geminiPreset.quirks.translate : {};
      const { turns } = replay(fixture, options);
      for (const payloads of turns) {
        const startedIds = started(payloads).map((payload) => (payload.type === 'item.started' ? payload.item.id : ''));
        const completedIds = completedItems(payloads).map((item) => item.id);
        expect(new Set(startedIds).size).toBe(startedIds.length);
        expect(completedIds.sort()).toEqual([...startedIds].sort());
      }
    },
  );
});

describe('claude-agent-acp 0.23.1 frames', () => {
  it('text turn: one reasoning and one message item, deltas that add up, usage with provider cost', async () => {
    const { turns, outcomes } = replay(await load('claude-agent-acp', 'text-turn'));
    const turn = turns[1] as EventPayload[];
    const items = completedItems(turn);
    expect(items.map((item) => item.kind)).toEqual(['reasoning', 'agent_message']);
    expect(items[1]).toMatchObject({ text: 'Hello from the fake model.', status: 'completed' });
    const text = turn.flatMap((p) => (p.type === 'item.delta' && p.kind === 'text' ? [p.text] : [])).join('');
    expect(text).toBe('Hello from the fake model.');
    expect(turn.find((p) => p.type === 'usage.updated')).toMatchObject({
      context: { window: 200000 },
      costUsd: { currency: 'USD', source: 'provider' },
    });
    expect(outcomes).toEqual(['completed']);
  });

  it('shell turn: empty rawInput on tool_call, input from the update, one item, name from _meta', async () => {
    const { turns } = replay(await load('claude-agent-acp', 'shell-tool-turn'));
    const turn = turns[1] as EventPayload[];
    const tool = completedItems(turn).find((item): item is ToolCallItem => item.kind === 'tool_call');
    expect(started(turn).filter((p) => p.type === 'item.started' && p.item.kind === 'tool_call')).toHaveLength(1);
    expect(tool).toMatchObject({
      status: 'completed',
      tool: { kind: 'command', name: 'Bash' },
      input: { command: 'echo hello-from-tool > tool-out.txt && cat tool-out.txt' },
    });
    expect(tool?.output?.text).toContain('hello-from-tool');
  });

  it('file write: an edit tool is a file_change, the completing update without title keeps the name', async () => {
    const { turns } = replay(await load('claude-agent-acp', 'file-write-turn'));
    const tool = completedItems(turns[1] as EventPayload[]).find(
      (item): item is ToolCallItem => item.kind === 'tool_call',
    );
    expect(tool).toMatchObject({
      status: 'completed',
      tool: { kind: 'file_change', name: 'Write', title: expect.stringMatching(/^Write .*written-by-tool\.txt$/) },
    });
    expect(tool?.output?.structured).toMatch(/^File created successfully at: .*written-by-tool\.txt$/);
  });

  it('load replays history outside a turn: user messages marked replay, nothing opens a turn', async () => {
    const { turns } = replay(await load('claude-agent-acp', 'resume-in-a-new-process-2'));
    expect(turns[0]?.some((p) => p.type === 'item.started' && p.item.kind === 'user_message')).toBe(true);
    const history = completedItems(turns[0] as EventPayload[]);
    // The /model record and its output come before the prompt, each a synthetic message of its own.
    expect(history.map((item) => item.kind)).toEqual(['user_message', 'user_message', 'user_message', 'agent_message']);
    expect(history.map((item) => (item.kind === 'user_message' ? (item.origin ?? 'user') : item.kind))).toEqual([
      'synthetic',
      'synthetic',
      'user',
      'agent_message',
    ]);
    expect(history[2]).toMatchObject({ replay: true, text: 'Remember the word pineapple.' });
    expect(history[3]).toMatchObject({ text: 'First answer.' });
    expect(completedItems(turns[1] as EventPayload[]).map((item) => item.kind)).toEqual(['agent_message']);
  });

  it('load replay: machinery chunks (a /model record and its output) stay apart from the typed prompt', () => {
    // claude-agent-acp 0.23.1 replays one user_message_chunk per stored entry, with no messageId.
    const state = createTranslateState();
    const chunk = (text: string) =>
      translateUpdate(
        state,
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text } } as SessionUpdate,
        { inTurn: false },
      );
    const payloads = [
      ...chunk(
        '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>default</command-args>',
      ),
      ...chunk('<local-command-stdout>Set model to claude-sonnet-4-6</local-command-stdout>'),
      ...chunk('Remember the word pelican.'),
      ...chunk(' And say it back.'),
      ...finishReplay(state),
    ];
    const users = completedItems(payloads).filter((item) => item.kind === 'user_message');
    expect(users.map((item) => [item.kind === 'user_message' ? (item.origin ?? 'user') : '', item.text])).toEqual([
      ['synthetic', expect.stringContaining('<command-name>/model')],
      ['synthetic', '<local-command-stdout>Set model to claude-sonnet-4-6</local-command-stdout>'],
      ['user', 'Remember the word pelican. And say it back.'],
    ]);
  });

  it('cancel: the cancelled turn ends cancelled and the next turn carries its own answer after the reopen', async () => {
    const { turns, outcomes } = replay(await load('claude-agent-acp', 'cancel-mid-turn'));
    expect(outcomes).toEqual(['cancelled', 'completed']);
    const second = completedItems(turns[2] as EventPayload[]).filter((item) => item.kind === 'agent_message');
    expect(second.map((item) => (item.kind === 'agent_message' ? item.text : ''))).toEqual([
      'Answer after the cancel.',
    ]);
  });
});

describe('gemini 0.61.0 frames', () => {
  it('shell: no tool_call, a permission request then tool_call_update make one command item', async () => {
    const { turns } = replay(await load('gemini', 'shell-tool-turn'), geminiPreset.quirks.translate);
    const turn = turns[1] as EventPayload[];
    const tools = completedItems(turn).filter((item): item is ToolCallItem => item.kind === 'tool_call');
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      status: 'completed',
      tool: { kind: 'command', name: 'run_shell_command' },
      input: { command: 'echo hello-from-tool > tool-out.txt && cat tool-out.txt' },
    });
    expect(turn.some((p) => p.type === 'permission.requested')).toBe(true);
  });
});

function update(value: Record<string, unknown>): SessionUpdate {
  return value as unknown as SessionUpdate;
}

describe('translation edge cases', () => {
  it('maps every ACP tool kind (fetch is web access, search is local)', () => {
    expect(toolKindOf('execute')).toBe('command');
    for (const kind of ['edit', 'delete', 'move'] as const) expect(toolKindOf(kind)).toBe('file_change');
    expect(toolKindOf('fetch')).toBe('web_search');
    for (const kind of ['search', 'read', 'think', 'switch_mode', 'other'] as const)
      expect(toolKindOf(kind)).toBe('other');
    expect(toolKindOf(undefined)).toBe('other');
  });

  it('codex-acp 2.6.0: command output arrives only as _meta.terminal_output_delta appends, the exit in terminal_exit', () => {
    const state = createTranslateState();
    beginTurn(state);
    const meta = (extra: Record<string, unknown>) => ({ terminal_info: { cwd: '/w', terminal_id: 'c1' }, ...extra });
    translateUpdate(
      state,
      update({
        sessionUpdate: 'tool_call',
        toolCallId: 'c1',
        title: 'echo hi',
        kind: 'execute',
        status: 'in_progress',
        _meta: meta({}),
      }),
      { inTurn: true },
    );
    const first = translateUpdate(
      state,
      update({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        _meta: { terminal_output_delta: { data: 'hi\n', terminal_id: 'c1' } },
      }),
      { inTurn: true },
    );
    const second = translateUpdate(
      state,
      update({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        _meta: { terminal_output_delta: { data: 'there\n', terminal_id: 'c1' } },
      }),
      { inTurn: true },
    );
    const done = translateUpdate(
      state,
      update({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'completed',
        _meta: { terminal_exit: { exit_code: 3, signal: null, terminal_id: 'c1' } },
      }),
      { inTurn: true },
    );
    const deltas = [...first, ...second].flatMap((payload) =>
      payload.type === 'item.delta' && payload.kind === 'tool_output' ? [payload.text] : [],
    );
    expect(deltas).toEqual(['hi\n', 'there\n']);
    const item = completedItems(done)[0] as ToolCallItem;
    expect(item.output?.text).toBe('hi\nthere\n');
    expect(item.exitCode).toBe(3);
  });

  it('turns diff content into changes and keeps the established title when an update has none', () => {
    const state = createTranslateState();
    beginTurn(state);
    translateUpdate(
      state,
      update({
        sessionUpdate: 'tool_call',
        toolCallId: 'e1',
        title: 'Edit a.txt',
        kind: 'edit',
        status: 'in_progress',
      }),
      { inTurn: true },
    );
    const out = translateUpdate(
      state,
      update({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'e1',
        status: 'completed',
        content: [{ type: 'diff', path: '/w/a.txt', oldText: 'one\n', newText: 'two\n' }],
      }),
      { inTurn: true },
    );
    const item = completedItems(out)[0] as ToolCallItem;
    expect(item.tool).toEqual({ kind: 'file_change', name: 'Edit a.txt', title: 'Edit a.txt' });
    expect(item.changes).toEqual([
      { path: '/w/a.txt', kind: 'update', diff: wholeFileDiff('/w/a.txt', 'one\n', 'two\n') },
    ]);
    expect(wholeFileDiff('/w/n.txt', null, 'x\n')).toBe('--- /dev/null\n+++ b//w/n.txt\n@@ -0,0 +1,1 @@\n+x');
  });

  it('a chunk of another kind completes the open text item; a tool call does too', () => {
    const state = createTranslateState();
    beginTurn(state);
    const a = translateUpdate(
      state,
      update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } }),
      { inTurn: true },
    );
    const b = translateUpdate(
      state,
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } }),
      { inTurn: true },
    );
    const c = translateUpdate(
      state,
      update({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'x', kind: 'read' }),
      { inTurn: true },
    );
    expect(a.map((p) => p.type)).toEqual(['item.started', 'item.delta']);
    expect(b.map((p) => p.type)).toEqual(['item.completed', 'item.started', 'item.delta']);
    expect(c.map((p) => p.type)).toEqual(['item.completed', 'item.started']);
    expect(endTurn(state)).toEqual([]);
  });

  it('opens a new message item when OpenCode changes messageId', () => {
    const state = createTranslateState();
    beginTurn(state);
    translateUpdate(
      state,
      update({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'a' } }),
      { inTurn: true },
    );
    const next = translateUpdate(
      state,
      update({ sessionUpdate: 'agent_message_chunk', messageId: 'm2', content: { type: 'text', text: 'b' } }),
      { inTurn: true },
    );
    expect(next.map((p) => p.type)).toEqual(['item.completed', 'item.started', 'item.delta']);
  });

  it('plan, mode, config, title, notice and unknown kinds', () => {
    const state = createTranslateState();
    const plan = translateUpdate(
      state,
      update({ sessionUpdate: 'plan', entries: [{ content: 'Step 1', status: 'in_progress', priority: 'medium' }] }),
      { inTurn: true },
    );
    expect(completedItems(plan)[0]).toMatchObject({
      kind: 'plan',
      entries: [{ text: 'Step 1', status: 'in_progress', priority: 'medium' }],
    });
    expect(
      translateUpdate(state, update({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }), {
        inTurn: false,
      }),
    ).toEqual([{ type: 'session.updated', mode: 'plan' }]);
    const config = translateUpdate(
      state,
      update({
        sessionUpdate: 'config_option_update',
        configOptions: [
          { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'm2', options: [] },
        ],
      }),
      { inTurn: false },
    );
    expect(config).toEqual([{ type: 'session.updated', model: 'm2' }]);
    expect(
      translateUpdate(state, update({ sessionUpdate: 'session_info_update', title: 'T' }), { inTurn: false }),
    ).toEqual([{ type: 'session.updated', title: 'T' }]);
    expect(
      translateUpdate(state, update({ sessionUpdate: 'notice', severity: 'warning', title: 'Careful' }), {
        inTurn: true,
      })[0],
    ).toMatchObject({ type: 'notice', kind: 'warning', message: 'Careful' });
    // NoticeSeverity is open: one ACP does not name, inherited names included, is info.
    expect(
      translateUpdate(state, update({ sessionUpdate: 'notice', severity: 'constructor', title: 'Odd' }), {
        inTurn: true,
      })[0],
    ).toMatchObject({ type: 'notice', kind: 'info', message: 'Odd' });
    expect(
      translateUpdate(state, update({ sessionUpdate: 'available_commands_update', availableCommands: [] }), {
        inTurn: true,
      })[0]?.type,
    ).toBe('passthrough');
    expect(translateUpdate(state, update({ sessionUpdate: 'brand_new_kind', x: 1 }), { inTurn: true })).toEqual([
      { type: 'passthrough', frame: { sessionUpdate: 'brand_new_kind', x: 1 }, reason: 'unknown' },
    ]);
  });

  // What a newer or broken agent sends (issue 14): nothing throws, nothing invalid is emitted.
  it.each([
    ['a chunk with no content', { sessionUpdate: 'agent_message_chunk' }],
    [
      'a chunk whose text is not a string',
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 5 } },
    ],
    ['a tool call with no id', { sessionUpdate: 'tool_call', title: 'x', kind: 'execute' }],
    ['a notice with no title', { sessionUpdate: 'notice', severity: 'info' }],
    ['a usage update with counts of the wrong type', { sessionUpdate: 'usage_update', used: 'many', size: null }],
    ['a mode update with no mode', { sessionUpdate: 'current_mode_update' }],
    ['a plan with no entries', { sessionUpdate: 'plan', entries: 'soon' }],
    ['no sessionUpdate at all', { content: { type: 'text', text: 'x' } }],
  ])('passes %s through as unparsable', (_what, raw) => {
    const state = createTranslateState();
    expect(translateUpdate(state, update(raw as Record<string, unknown>), { inTurn: true })).toEqual([
      { type: 'passthrough', frame: expect.anything(), reason: 'unparsable' },
    ]);
  });

  it('a tool kind or compaction status newer than the SDK is other / passed through; a compaction is one item', () => {
    const state = createTranslateState();
    const [started] = translateUpdate(
      state,
      update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'x', kind: 'teleport', status: 'pending' }),
      { inTurn: true },
    );
    expect(started).toMatchObject({ type: 'item.started', item: { tool: { kind: 'other', name: 'x' } } });
    const compaction = (status: string) =>
      translateUpdate(state, update({ sessionUpdate: 'compaction_update', compactionId: 'c', status }), {
        inTurn: true,
      }).map((payload) => ('reason' in payload ? `passthrough ${payload.reason}` : payload.type));
    expect(compaction('paused')).toEqual(['passthrough unknown']);
    expect(compaction('in_progress')).toEqual(['item.started']);
    expect(compaction('in_progress')).toEqual(['passthrough']);
    expect(compaction('completed')).toEqual(['item.completed']);
    expect(compaction('completed')).toEqual(['passthrough duplicate']);
  });

  it('usage: negative or missing counts and a cost without an amount stay absent', () => {
    const state = createTranslateState();
    expect(
      translateUpdate(
        state,
        update({ sessionUpdate: 'usage_update', used: -5, size: 1000, cost: { amount: 'x', currency: 'USD' } }),
        { inTurn: true },
      ),
    ).toEqual([{ type: 'usage.updated', context: { window: 1000 } }]);
  });

  it('permission options Reins cannot offer (no id, an unknown kind) are left out, never invented', () => {
    const state = createTranslateState();
    const options = [
      { optionId: 'a', kind: 'allow_once', name: 'Allow' },
      { optionId: 'b', kind: 'allow_forever', name: 'Forever' },
      { kind: 'reject_once', name: 'No id' },
      null,
    ] as never[];
    const { payloads } = translatePermission(state, 'perm_1', { toolCallId: 't9', title: 'ls' }, options);
    expect(payloads.at(-1)).toMatchObject({ options: [{ id: 'a', kind: 'allow_once', label: 'Allow' }] });
    expect(pickPermissionOption(options, { behavior: 'deny' })).toBeUndefined();
    expect(pickPermissionOption(options, { behavior: 'allow' })).toBe('a');
  });

  it('stop reasons: refusal and max_tokens complete, cancelled cancels, one newer than the SDK completes', () => {
    for (const reason of ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal'] as const)
      expect(outcomeOf(reason)).toEqual({ status: 'completed' });
    expect(outcomeOf('cancelled')).toEqual({ status: 'cancelled' });
    // The agent ended the prompt without a JSON-RPC error: the turn is over; the session keeps the value.
    expect(outcomeOf('future_reason')).toEqual({ status: 'completed' });
    expect(outcomeOf(undefined)).toEqual({ status: 'completed' });
  });

  it('picks permission options by decision and scope', () => {
    const options = [
      { optionId: 'always', name: 'Always', kind: 'allow_always' as const },
      { optionId: 'once', name: 'Once', kind: 'allow_once' as const },
      { optionId: 'no', name: 'No', kind: 'reject_once' as const },
    ];
    expect(pickPermissionOption(options, { behavior: 'allow' })).toBe('once');
    expect(pickPermissionOption(options, { behavior: 'allow', scope: 'session' })).toBe('always');
    expect(pickPermissionOption(options, { behavior: 'deny', scope: 'session' })).toBe('no');
    expect(pickPermissionOption(options, { behavior: 'deny', optionId: 'always' })).toBe('always');
  });
});

describe('preset quirk rules', () => {
  it('codex-acp 2.6.0: an OpenAI error body as the whole message is a provider error; other JSON is text', () => {
    // Recorded from 2.6.0 against the scripted server's HTTP 400.
    const recorded =
      '{"error":{"message":"scripted 400 error","type":"invalid_request_error","param":null,"code":null}}\n\n';
    expect(codexAcpStatusChunk(recorded)).toEqual({
      kind: 'provider_error',
      error: { kind: 'bad_request', status: 400, message: 'scripted 400 error' },
    });
    expect(codexAcpStatusChunk('{"error":{"message":"slow down","type":"rate_limit_error"}}')).toMatchObject({
      error: { kind: 'rate_limited', status: 429 },
    });
    // Model output that is JSON but not exactly an error body stays agent text.
    expect(codexAcpStatusChunk('{"error":{"message":"x","type":"my_app_error"}}')).toBeUndefined();
    // A type named like an Object.prototype member is no error type either (model text stays text).
    expect(codexAcpStatusChunk('{"error":{"message":"x","type":"constructor"}}')).toBeUndefined();
    expect(codexAcpStatusChunk('{"error":{"message":"x","type":"invalid_request_error"},"data":1}')).toBeUndefined();
    expect(
      codexAcpStatusChunk('The API said {"error":{"message":"x","type":"invalid_request_error"}}'),
    ).toBeUndefined();
    expect(codexAcpStatusChunk('{"title":"Fix the build"}')).toBeUndefined();
  });

  it('Copilot 1.0.102: status chunks are retries or provider errors, model text that mentions errors is neither', () => {
    const error = (text: string) => {
      const status = copilotStatusChunk(text);
      return status?.kind === 'provider_error' ? status.error : undefined;
    };
    expect(error('Error: 400 fake invalid_request 400')).toEqual({
      kind: 'bad_request',
      status: 400,
      message: '400 fake invalid_request 400',
    });
    // Recorded from 1.0.102 under sustained 500s: the last status named is the one that counts.
    expect(
      error(
        'Error: Failed to get response from the AI model; retried 5 times (total retry wait time: 16.07 seconds) Last error: 500 scripted 500 error',
      ),
    ).toMatchObject({ kind: 'server_error', status: 500 });
    expect(error('Error: 429 rate limit')).toMatchObject({ kind: 'rate_limited' });
    expect(copilotStatusChunk('Info: Request failed due to a transient API error. Retrying...')).toEqual({
      kind: 'retry',
      message: 'Request failed due to a transient API error. Retrying...',
    });
    expect(copilotStatusChunk('The Error: handling in foo.ts returns 400')).toBeUndefined();
    expect(copilotStatusChunk('Error: the variable is undefined')).toBeUndefined();
    expect(copilotStatusChunk('Info: the build passed.')).toBeUndefined();
  });

  it('tool content is replaced, not appended: a description in the opening frame is not output (Gemini 0.61.0)', () => {
    const state = createTranslateState(geminiPreset.quirks.translate);
    beginTurn(state);
    const update = (frame: Record<string, unknown>) =>
      translateUpdate(state, { toolCallId: 'run_shell_command__1', ...frame } as SessionUpdate, { inTurn: true });
    update({
      sessionUpdate: 'tool_call',
      status: 'in_progress',
      title: 'echo hi',
      kind: 'execute',
      content: [{ type: 'content', content: { type: 'text', text: '[current working directory /w] (Run it)' } }],
    });
    const done = update({ sessionUpdate: 'tool_call_update', status: 'completed', content: [], kind: 'execute' });
    const item = done.find((payload) => payload.type === 'item.completed');
    expect(item?.type === 'item.completed' && item.item.kind === 'tool_call' && item.item).toMatchObject({
      status: 'completed',
      input: { command: 'echo hi' },
    });
    expect(item?.type === 'item.completed' && item.item.kind === 'tool_call' && item.item.output).toBeUndefined();
  });

  it('Gemini 0.61.0 thought chunks: the empty heading goes, trimmed boundaries get one space, a subject a paragraph', () => {
    const state = createTranslateState(geminiPreset.quirks.translate);
    beginTurn(state);
    const thought = (text: string) =>
      translateUpdate(
        state,
        { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } },
        { inTurn: true },
      );
    thought('**Planning**\nI will read the file.');
    thought('****\nThen I run the tests.');
    thought('**Checking**\nAll green.');
    const [item] = completedItems(endTurn(state));
    expect(item).toMatchObject({
      kind: 'reasoning',
      text: '**Planning**\nI will read the file. Then I run the tests.\n\n**Checking**\nAll green.',
    });
    expect(geminiThoughtChunk('****\nAlone.', false)).toBe('Alone.');
    expect(geminiThoughtChunk('no heading at all', true)).toBe('no heading at all');
  });

  it('counts only output as turn updates: chatter such as available commands is not an answer', () => {
    const state = createTranslateState();
    beginTurn(state);
    translateUpdate(state, { sessionUpdate: 'available_commands_update', availableCommands: [] }, { inTurn: true });
    translateUpdate(state, { sessionUpdate: 'usage_update', used: 0, size: 1000 }, { inTurn: true });
    expect(state.turnUpdates).toBe(0);
    translateUpdate(
      state,
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } },
      { inTurn: true },
    );
    expect(state.turnUpdates).toBe(1);
  });

  it('status chunks become a retry notice and a failed turn, never agent text', () => {
    const state = createTranslateState(copilotPreset.quirks.translate);
    beginTurn(state);
    const chunk = (text: string) =>
      translateUpdate(
        state,
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
        { inTurn: true },
      );
    expect(chunk('Info: Request failed due to a transient API error. Retrying...')).toEqual([
      { type: 'notice', kind: 'retry', message: 'Request failed due to a transient API error. Retrying...' },
    ]);
    expect(chunk("Error: Model 'm' not found on provider at http://127.0.0.1:1/v1 (HTTP 404).")).toEqual([]);
    expect(endTurn(state)).toEqual([]);
    expect(state.turnText).toBe('');
    expect(state.providerError).toMatchObject({ status: 404 });
    // A 404 is unsupported_model (BINDING words, the model named), 401 auth_required, the rest provider_error.
    const failure = providerFailure(state.providerError as NonNullable<typeof state.providerError>, {}, 'm');
    expect(failure.code).toBe('unsupported_model');
    expect(failure.message).toContain('unsupported model "m"');
    expect(providerFailure({ kind: 'bad_request', status: 401, message: 'no key' }).code).toBe('auth_required');
    // The real Gemini API's words for an unknown model, relabelled 500 by Gemini CLI 0.61.0.
    expect(
      providerFailure({ kind: 'server_error', status: 500, message: 'models/x is not found for API version v1beta' }),
    ).toMatchObject({ code: 'unsupported_model' });
    expect(providerFailure({ kind: 'server_error', status: 500, message: 'file not found' }).code).toBe(
      'provider_error',
    );
    expect(
      providerFailure({ kind: 'server_error', status: 500, message: 'scripted 404 error: model x not found' }).code,
    ).toBe('unsupported_model');
    expect(providerFailure({ kind: 'server_error', status: 500, message: '500 boom' })).toMatchObject({
      code: 'provider_error',
      retryable: true,
      data: { kind: 'server_error', status: 500 },
    });
  });

  it('OpenCode 1.18.33: cloud models are hidden only when models fetch is off', () => {
    expect(opencodeHidesModel('opencode/big-pickle', { OPENCODE_DISABLE_MODELS_FETCH: '1' })).toBe(true);
    expect(opencodeHidesModel('fake/fake-model', { OPENCODE_DISABLE_MODELS_FETCH: '1' })).toBe(false);
    expect(opencodeHidesModel('opencode/big-pickle', {})).toBe(false);
  });

  it('classifies prompt errors carrying an HTTP status as provider errors', () => {
    const gemini = new ReinsError('protocol_error', 'x', {
      data: { rpcCode: 400, rpcMessage: '{"error":{"code":400}}' },
    });
    expect(classifyPromptError(gemini)).toMatchObject({
      code: 'provider_error',
      data: { kind: 'bad_request', status: 400 },
    });
    const qwen = new ReinsError('protocol_error', 'x', {
      data: { rpcCode: -32603, rpcMessage: 'Internal error', rpcData: { details: '500 fake server error' } },
    });
    expect(classifyPromptError(qwen)).toMatchObject({
      code: 'provider_error',
      data: { kind: 'server_error' },
      retryable: true,
    });
    const other = new ReinsError('protocol_error', 'x', { data: { rpcCode: -32603, rpcMessage: 'Session not found' } });
    expect(classifyPromptError(other).code).toBe('protocol_error');
    // An agent that speaks Reins errors (our ACP bridge) keeps its original code.
    const bridged = new ReinsError('protocol_error', 'agent error', {
      data: {
        rpcCode: -32603,
        rpcMessage: 'We are seeing high demand',
        rpcData: {
          code: 'provider_error',
          message: 'We are seeing high demand',
          retryable: true,
          data: { kind: 'server_error' },
        },
      },
    });
    expect(classifyPromptError(bridged)).toEqual({
      code: 'provider_error',
      message: 'We are seeing high demand',
      retryable: true,
      data: { kind: 'server_error' },
    });
  });

  it('Gemini 0.61.0 quota tokens', () => {
    expect(quotaTokens({ quota: { token_count: { input_tokens: 5, output_tokens: 2 } } })).toEqual({
      input: 5,
      output: 2,
    });
    expect(quotaTokens(undefined)).toBeUndefined();
  });
});
