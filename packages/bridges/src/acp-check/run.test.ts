// acp-check's verdict against in-memory ACP v1 agents: a well-behaved one is CONFORMANT, and each
// deliberately broken one is NOT CONFORMANT naming the requirement it breaks.
import { describe, expect, it } from 'vitest';
import type { AgentTransport } from './peer.js';
import { completeResults, REQUIREMENTS, verdictOf } from './report.js';
import { runAcpCheck } from './run.js';

interface Flaws {
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
}

/** A minimal ACP v1 agent in memory: the first prompt ends at once, later ones run until cancelled. */
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
  const handle = (message: { id?: number; method?: string; params?: Record<string, unknown> }) => {
    const { id, method, params = {} } = message;
    if (dead) return;
    if (method === 'initialize') {
      const result = { protocolVersion: 1, agentInfo: { name: 'memory-agent', version: '0.0.0' }, authMethods: [] };
      emit({ id, result });
      if (flaws.exitsAfterInitialize) dead = true;
      if (flaws.exitsAfterInitialize) setImmediate(() => exit('exited with code 1'));
      return;
    }
    if (method === 'session/new') return emit({ id, result: { sessionId: flaws.numericSessionId ? 7 : 'session-1' } });
    if (method === 'session/prompt') {
      const sessionId = String(params.sessionId);
      prompts += 1;
      if (prompts > 1 && flaws.failsLaterPrompts)
        return emit({ id, error: { code: -32603, message: 'Internal error' } });
      if (prompts > 1) return void held.set(sessionId, id);
      const update = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello.' } };
      return emit(
        { method: 'session/update', params: { sessionId, update } },
        { id, result: { stopReason: 'end_turn' } },
      );
    }
    if (method === 'session/cancel') {
      const sessionId = String(params.sessionId);
      if (flaws.ignoreCancel || !held.has(sessionId)) return;
      emit({ id: held.get(sessionId), result: { stopReason: 'cancelled' } });
      return void held.delete(sessionId);
    }
    if (id === undefined) return;
    if (flaws.answersUnknown) return emit({ id, result: {} });
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
    protocol: 1,
    cwd: '/tmp',
    timeoutMs: 1_000,
    cancelAfterMs: 50,
  });

const statusOf = (report: Awaited<ReturnType<typeof check>>, id: string) =>
  report.results.find((result) => result.id === id)?.status;

describe('acp-check against in-memory agents', () => {
  it('a well-behaved v1 agent is CONFORMANT: every MANDATORY requirement passes', async () => {
    const report = await check();
    expect(report.verdict).toBe('CONFORMANT');
    const mandatory = report.results.filter((result) => result.tier === 'MANDATORY');
    expect(mandatory.map((result) => [result.id, result.status])).toEqual(mandatory.map((r) => [r.id, 'pass']));
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
