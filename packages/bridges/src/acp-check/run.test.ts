// acp-check's verdict against in-memory ACP v1 and v2 agents: a well-behaved one is CONFORMANT, and each
// deliberately broken one is NOT CONFORMANT naming the requirement it breaks.
import { describe, expect, it } from 'vitest';
import type { AgentTransport } from './peer.js';
import { completeResults, REQUIREMENTS, verdictOf } from './report.js';
import { runAcpCheck } from './run.js';

interface Flaws {
  /** Speaks ACP v2 (state_update, upserts, resume with replay) instead of v1. */
  v2?: boolean;
  /** Holds a cancelled prompt forever. */
  ignoreCancel?: boolean;
  /** Writes the first session/update and the prompt's answer on one line. */
  twoOnOneLine?: boolean;
  /** Answers session/new with a number as the sessionId. */
  numericSessionId?: boolean;
  /** Answers an unknown method with a result. */
  answersUnknown?: boolean;
  /** Exits right after answering initialize. */
  exitsAfterInitialize?: boolean;
  /** Answers every prompt after the first with an internal error. */
  failsLaterPrompts?: boolean;
  /** v1: creates its tool call twice. */
  duplicateToolCall?: boolean;
  /** v1: updates a tool call it never created. */
  updatesUnknownToolCall?: boolean;
  /** Ends the first turn with its tool call still in progress. */
  leavesToolCallOpen?: boolean;
  /** Answers the methods it did not advertise (session/load, session/delete, ...) with a result. */
  answersUnadvertised?: boolean;
  /** v2: reports no running state before the cancelled turn's idle. */
  skipsRunning?: boolean;
  /** v2: streams tool-call content for a tool call no update created. */
  chunksUnknownToolCall?: boolean;
  /** v2: sends the agent's reply under the user message's id. */
  reusesMessageId?: boolean;
  /** v2: a resume replays only state and commands, no message of the conversation. */
  replaysNoMessage?: boolean;
}

const GATED = ['session/load', 'session/set_mode', 'session/resume', 'session/list', 'session/close', 'session/delete'];

/**
 * A minimal ACP agent in memory (v1, or v2 with `v2`): the first prompt makes one tool call and ends at
 * once, later ones run until cancelled; it advertises no capability (v2 resume is baseline).
 */
function memoryAgent(flaws: Flaws = {}): AgentTransport {
  let listener: (line: string) => void = () => {};
  let exit: (how: string) => void = () => {};
  let prompts = 0;
  /** Once exited, it reads nothing more (as a dead process). */
  let dead = false;
  const held = new Map<string, unknown>();
  const emit = (...messages: object[]) => {
    const lines = messages.map((message) => JSON.stringify({ jsonrpc: '2.0', ...message }));
    setImmediate(() => {
      if (flaws.twoOnOneLine) listener(lines.join(''));
      else for (const line of lines) listener(line);
    });
  };
  const update = (sessionId: string, body: Record<string, unknown>) => ({
    method: 'session/update',
    params: { sessionId, update: body },
  });
  const state = (sessionId: string, value: string, stopReason?: string) =>
    update(sessionId, { sessionUpdate: 'state_update', state: value, ...(stopReason ? { stopReason } : {}) });
  const toolCall = (sessionId: string): object[] => {
    const done = flaws.leavesToolCallOpen ? 'in_progress' : 'completed';
    if (flaws.v2) {
      const chunkFor = flaws.chunksUnknownToolCall ? 't9' : 't1';
      const content = { type: 'content', content: { type: 'text', text: 'ok' } };
      return [
        update(sessionId, {
          sessionUpdate: 'tool_call_update',
          toolCallId: 't1',
          title: 'Read',
          status: 'in_progress',
        }),
        update(sessionId, { sessionUpdate: 'tool_call_content_chunk', toolCallId: chunkFor, content }),
        update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: done }),
      ];
    }
    const created = { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', status: 'pending' };
    return [
      update(sessionId, created),
      ...(flaws.duplicateToolCall ? [update(sessionId, created)] : []),
      update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: flaws.updatesUnknownToolCall ? 't9' : 't1' }),
      update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: done }),
    ];
  };
  const prompt = (id: number | undefined, sessionId: string) => {
    prompts += 1;
    if (prompts > 1 && flaws.failsLaterPrompts) return emit({ id, error: { code: -32603, message: 'Internal error' } });
    const hello = { type: 'text', text: 'Hello.' };
    if (!flaws.v2) {
      if (prompts > 1) return void held.set(sessionId, id);
      const chunk = update(sessionId, { sessionUpdate: 'agent_message_chunk', content: hello });
      return emit(chunk, ...toolCall(sessionId), { id, result: { stopReason: 'end_turn' } });
    }
    const messageId = `user-${prompts}`;
    const user = update(sessionId, { sessionUpdate: 'user_message', messageId, content: [] });
    const running = prompts > 1 && flaws.skipsRunning ? [] : [state(sessionId, 'running')];
    emit(...running, user, { id, result: { messageId } });
    if (prompts > 1) return void held.set(sessionId, id);
    const replyId = flaws.reusesMessageId ? messageId : `agent-${prompts}`;
    const chunk = update(sessionId, { sessionUpdate: 'agent_message_chunk', messageId: replyId, content: hello });
    emit(chunk, ...toolCall(sessionId), state(sessionId, 'idle', 'end_turn'));
  };
  const resume = (id: number | undefined, sessionId: string) => {
    const agent = { sessionUpdate: 'agent_message', messageId: 'agent-1', content: [{ type: 'text', text: 'Hello.' }] };
    const user = {
      sessionUpdate: 'user_message',
      messageId: 'user-1',
      content: [{ type: 'text', text: 'Say hello.' }],
    };
    const commands = { sessionUpdate: 'available_commands_update', availableCommands: [] };
    const replay = flaws.replaysNoMessage ? [commands] : [user, agent];
    emit(...replay.map((body) => update(sessionId, body)), state(sessionId, 'idle'), { id, result: {} });
  };
  const handle = (message: { id?: number; method?: string; params?: Record<string, unknown> }) => {
    const { id, method, params = {} } = message;
    if (dead) return;
    if (method === 'initialize') {
      const info = { name: 'memory-agent', version: '0.0.0' };
      const result = flaws.v2
        ? { protocolVersion: 2, info, capabilities: {}, authMethods: [] }
        : { protocolVersion: 1, agentInfo: info, authMethods: [] };
      emit({ id, result });
      if (flaws.exitsAfterInitialize) dead = true;
      if (flaws.exitsAfterInitialize) setImmediate(() => exit('exited with code 1'));
      return;
    }
    if (method === 'session/new') return emit({ id, result: { sessionId: flaws.numericSessionId ? 7 : 'session-1' } });
    if (method === 'session/prompt') return prompt(id, String(params.sessionId));
    if (method === 'session/resume' && flaws.v2) return resume(id, String(params.sessionId));
    if (method === 'session/cancel') {
      const sessionId = String(params.sessionId);
      if (flaws.ignoreCancel || !held.has(sessionId)) return;
      if (flaws.v2) emit(state(sessionId, 'idle', 'cancelled'));
      else emit({ id: held.get(sessionId), result: { stopReason: 'cancelled' } });
      return void held.delete(sessionId);
    }
    if (id === undefined) return;
    if (flaws.answersUnknown && !GATED.includes(String(method))) return emit({ id, result: {} });
    if (flaws.answersUnadvertised && GATED.includes(String(method)))
      return emit({ id, result: method === 'session/list' ? { sessions: [] } : {} });
    emit({ id, error: { code: -32601, message: `Method not found: ${method}` } });
  };
  return {
    write: (line) => handle(JSON.parse(line)),
    onLine: (next) => {
      listener = next;
    },
    onExit: (next) => {
      exit = next;
    },
    close: async () => {},
  };
}

const check = (flaws?: Flaws) =>
  runAcpCheck({
    start: () => memoryAgent(flaws),
    command: ['memory-agent'],
    protocol: flaws?.v2 ? 2 : 1,
    cwd: '/tmp',
    timeoutMs: 1_000,
    cancelAfterMs: 50,
  });

const statusOf = (report: Awaited<ReturnType<typeof check>>, id: string) =>
  report.results.find((result) => result.id === id)?.status;
const detailOf = (report: Awaited<ReturnType<typeof check>>, id: string) =>
  report.results.find((result) => result.id === id)?.detail;

describe('acp-check against in-memory agents', () => {
  it('a well-behaved v1 agent is CONFORMANT: every MANDATORY requirement passes', async () => {
    const report = await check();
    expect(report.verdict).toBe('CONFORMANT');
    // v2-state-updates is the one MANDATORY requirement v1 has nothing to say about.
    const mandatory = report.results.filter(
      (result) => result.tier === 'MANDATORY' && result.id !== 'v2-state-updates',
    );
    expect(mandatory.map((result) => [result.id, result.status])).toEqual(mandatory.map((r) => [r.id, 'pass']));
    expect(statusOf(report, 'v2-state-updates')).toBe('skip');
    expect(detailOf(report, 'updates-by-id')).toBe('1 tool call(s), 0 message id(s)');
    expect(statusOf(report, 'tool-calls-end')).toBe('pass');
    expect(detailOf(report, 'unadvertised-methods')).toMatch(/^errors for session\/load, session\/set_mode, /);
    expect(report.agent).toMatchObject({ name: 'memory-agent', version: '0.0.0' });
    expect(report.protocol).toEqual({ requested: 1, negotiated: 1 });
    // Nothing advertised: the capability requirements skip, they do not fail.
    expect(statusOf(report, 'session-load')).toBe('skip');
    expect(statusOf(report, 'set-mode')).toBe('skip');
  });

  it('an agent that never answers a cancelled prompt is NOT CONFORMANT on cancel', async () => {
    const report = await check({ ignoreCancel: true });
    expect(report.verdict).toBe('NOT CONFORMANT');
    expect(statusOf(report, 'cancel')).toBe('fail');
    expect(report.results.find((result) => result.id === 'cancel')?.detail).toMatch(/no end of the prompt turn/);
  });

  it('a prompt that fails before the cancel reaches it fails cancel (an error is no skip)', async () => {
    const report = await check({ failsLaterPrompts: true });
    expect(statusOf(report, 'cancel')).toBe('fail');
    expect(report.results.find((result) => result.id === 'cancel')?.detail).toMatch(/-32603/);
    expect(report.verdict).toBe('NOT CONFORMANT');
  });

  it('an agent that exits mid-run fails the requirement it was serving, saying it exited', async () => {
    const report = await check({ exitsAfterInitialize: true });
    expect(statusOf(report, 'initialize')).toBe('pass');
    expect(report.results.find((result) => result.id === 'session-new')?.detail).toMatch(
      /the agent exited with code 1/,
    );
    expect(report.verdict).toBe('NOT CONFORMANT');
  });

  it('two messages on one line fail stdio-framing', async () => {
    const report = await check({ twoOnOneLine: true });
    expect(report.verdict).toBe('NOT CONFORMANT');
    expect(statusOf(report, 'stdio-framing')).toBe('fail');
    expect(report.results.find((result) => result.id === 'stdio-framing')?.detail).toMatch(/not one JSON message/);
  });

  it('an answer that breaks the schema fails schema, naming the type', async () => {
    const report = await check({ numericSessionId: true });
    expect(statusOf(report, 'schema')).toBe('fail');
    expect(report.results.find((result) => result.id === 'schema')?.detail).toMatch(/NewSessionResponse/);
    expect(report.verdict).toBe('NOT CONFORMANT');
  });

  it('an unknown method answered with a result fails unknown-method', async () => {
    const report = await check({ answersUnknown: true });
    expect(statusOf(report, 'unknown-method')).toBe('fail');
    expect(report.verdict).toBe('NOT CONFORMANT');
  });

  it('a tool call created twice fails updates-by-id', async () => {
    const report = await check({ duplicateToolCall: true });
    expect(detailOf(report, 'updates-by-id')).toMatch(/a second tool_call creates t1/);
    expect(report.verdict).toBe('NOT CONFORMANT');
  });

  it('an update of a tool call never created fails updates-by-id', async () => {
    const report = await check({ updatesUnknownToolCall: true });
    expect(detailOf(report, 'updates-by-id')).toMatch(/tool_call_update for t9, which no tool_call created/);
    expect(report.verdict).toBe('NOT CONFORMANT');
  });

  it('a tool call still in progress when its turn ended fails tool-calls-end (ADVISORY: still CONFORMANT)', async () => {
    const report = await check({ leavesToolCallOpen: true });
    expect(statusOf(report, 'tool-calls-end')).toBe('fail');
    expect(detailOf(report, 'tool-calls-end')).toMatch(/t1 is still in_progress when the turn ended \(end_turn\)/);
    expect(report.verdict).toBe('CONFORMANT');
  });

  it('methods answered with a result though their capability was not advertised fail unadvertised-methods', async () => {
    const report = await check({ answersUnadvertised: true });
    expect(statusOf(report, 'unadvertised-methods')).toBe('fail');
    for (const method of GATED) expect(detailOf(report, 'unadvertised-methods')).toContain(method);
    // CAPABILITY: it informs, the verdict stands.
    expect(report.verdict).toBe('CONFORMANT');
  });
});

describe('acp-check against in-memory ACP v2 agents', () => {
  it('a well-behaved v2 agent is CONFORMANT: state around every prompt, upserts, resume with replay', async () => {
    const report = await check({ v2: true });
    expect(report.results.filter((result) => result.status === 'fail')).toEqual([]);
    expect(report.verdict).toBe('CONFORMANT');
    expect(report.protocol).toEqual({ requested: 2, negotiated: 2 });
    expect(statusOf(report, 'v2-state-updates')).toBe('pass');
    expect(detailOf(report, 'v2-state-updates')).toMatch(/around 2 prompt/);
    expect(detailOf(report, 'updates-by-id')).toMatch(/1 tool call\(s\), 3 message id\(s\)/);
    expect(statusOf(report, 'tool-calls-end')).toBe('pass');
    expect(statusOf(report, 'session-resume')).toBe('pass');
    expect(detailOf(report, 'unadvertised-methods')).toBe('errors for session/delete');
  });

  it('a cancelled turn without a running state fails v2-state-updates', async () => {
    const report = await check({ v2: true, skipsRunning: true });
    expect(detailOf(report, 'v2-state-updates')).toMatch(/prompt 2 reported idle/);
    expect(report.verdict).toBe('NOT CONFORMANT');
  });

  it('tool-call content for a tool call no update created fails updates-by-id', async () => {
    const report = await check({ v2: true, chunksUnknownToolCall: true });
    expect(detailOf(report, 'updates-by-id')).toMatch(/tool_call_content_chunk for t9/);
    expect(report.verdict).toBe('NOT CONFORMANT');
  });

  it("the agent's reply under the user message's id fails updates-by-id", async () => {
    const report = await check({ v2: true, reusesMessageId: true });
    expect(detailOf(report, 'updates-by-id')).toMatch(/messageId user-1 names a user and a agent message/);
    expect(report.verdict).toBe('NOT CONFORMANT');
  });

  it('a resume that replays no message of the conversation fails session-resume', async () => {
    const report = await check({ v2: true, replaysNoMessage: true });
    expect(detailOf(report, 'session-resume')).toMatch(/none of them a message of the conversation/);
  });

  it('session/delete answered though not advertised fails unadvertised-methods', async () => {
    const report = await check({ v2: true, answersUnadvertised: true });
    expect(detailOf(report, 'unadvertised-methods')).toMatch(/yet answered a result: session\/delete/);
  });
});

describe('the verdict', () => {
  const all = (status: 'pass' | 'fail') =>
    new Map(REQUIREMENTS.map((requirement) => [requirement.id, { status, detail: '' }]));

  it('only a MANDATORY failure makes an agent NOT CONFORMANT', () => {
    const found = all('pass');
    found.set('set-mode', { status: 'fail', detail: 'error' });
    found.set('meta-passthrough', { status: 'fail', detail: 'error' });
    expect(verdictOf(completeResults(found))).toBe('CONFORMANT');
    found.set('cancel', { status: 'fail', detail: 'never answered' });
    expect(verdictOf(completeResults(found))).toBe('NOT CONFORMANT');
  });

  it('a MANDATORY requirement the run never reached counts as failed', () => {
    const found = all('pass');
    found.delete('prompt-turn');
    const results = completeResults(found);
    expect(results.find((result) => result.id === 'prompt-turn')?.status).toBe('fail');
    expect(verdictOf(results)).toBe('NOT CONFORMANT');
  });
});
