// The mcp server status, fork and history behaviours against an in-memory harness that really asks
// the scripted model server (Chat Completions) with its whole conversation: each passes on a faithful
// harness, fails with its reason on a harness that breaks the contract, and ends as a limitation on
// an honest `unsupported_capability`.
import {
  computeCapabilities,
  type Harness,
  type ImplementedCapabilities,
  type Item,
  type McpServerStatus,
  ReinsError,
  type Session,
  SessionEventStream,
  type SessionSpec,
} from '@reins/core';
import { describe, expect, it } from 'vitest';
import type { ModelServer } from '../model-server/index.js';
import { HARNESS_STATE_BEHAVIOURS } from './harness-state-behaviours.js';
import { ECHO_SERVER_PATH } from './mcp-echo.js';
import { runConformance } from './suite.js';
import type { ConformanceTarget } from './target.js';

interface Message {
  role: 'user' | 'assistant';
  content: string;
}

interface Quirks {
  /** What mcpStatus() answers for the spec's servers; 'absent': no method; 'refuse': unsupported_capability. */
  mcp?: ((spec: SessionSpec) => McpServerStatus[]) | 'absent' | 'refuse';
  /** 'same-id': the fork keeps the original id; 'forgets': new id, empty conversation; 'refuse': unsupported_capability. */
  fork?: 'native' | 'same-id' | 'forgets' | 'refuse';
  /** Rewrites what history() answers; 'refuse': unsupported_capability. */
  history?: ((items: Item[]) => Item[]) | 'refuse';
  implemented?: ImplementedCapabilities;
}

const ALL: ImplementedCapabilities = { mcpStatus: true, fork: 'native', sessionList: true, history: true };

const connected = (spec: SessionSpec): McpServerStatus[] =>
  (spec.mcpServers ?? []).map((server) => ({ name: server.name, status: 'connected', tools: ['echo'] }));

const refusal = (operation: string) =>
  new ReinsError('unsupported_capability', `The memory harness cannot ${operation}.`, { operation });

/** Streams one Chat Completions request and returns the text the model answered. */
async function ask(server: ModelServer, messages: Message[]): Promise<string> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-model', messages, stream: true }),
  });
  let text = '';
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string } }[] };
    text += chunk.choices?.map((choice) => choice.delta?.content ?? '').join('') ?? '';
  }
  return text;
}

/** A harness whose conversations live in a Map, keyed by native id, like a harness's own store. */
function memoryHarness(server: ModelServer, quirks: Quirks): Harness {
  const store = new Map<string, { cwd: string; messages: Message[] }>();
  let next = 0;
  const createSession = async (spec: SessionSpec): Promise<Session> => {
    const resume = spec.resume;
    let nativeSessionId: string;
    if (resume?.fork) {
      if (quirks.fork === 'refuse') throw refusal('fork');
      const original = store.get(resume.nativeSessionId);
      if (!original) throw new ReinsError('resume_failed', `No conversation ${resume.nativeSessionId}.`);
      nativeSessionId = quirks.fork === 'same-id' ? resume.nativeSessionId : `native-${++next}`;
      const messages = quirks.fork === 'forgets' ? [] : [...original.messages];
      store.set(nativeSessionId, { cwd: spec.cwd, messages });
    } else {
      nativeSessionId = resume?.nativeSessionId ?? `native-${++next}`;
      if (!store.has(nativeSessionId)) store.set(nativeSessionId, { cwd: spec.cwd, messages: [] });
    }
    const stream = new SessionEventStream({ harness: 'acp', sessionId: `s-${nativeSessionId}` });
    const conversation = store.get(nativeSessionId)?.messages ?? [];
    const session: Session = {
      id: `s-${nativeSessionId}`,
      harness: 'acp',
      nativeSessionId,
      events: stream.events,
      async send(input) {
        const text = typeof input === 'string' ? input : input.text;
        const turnId = stream.startTurn({ text });
        if (!turnId) throw new Error('a turn is running');
        conversation.push({ role: 'user', content: text });
        const answer = await ask(server, conversation);
        conversation.push({ role: 'assistant', content: answer });
        stream.emit({
          type: 'item.completed',
          item: { kind: 'agent_message', id: `m-${turnId}`, status: 'completed', text: answer },
        });
        stream.completeTurn({ outcome: { status: 'completed' } });
        return { turnId, delivery: 'started' };
      },
      async interrupt() {},
      setModel: async () => ({ applied: 'live' }),
      setEffort: async () => ({ applied: 'live' }),
      respondToPermission: async () => {},
      async close() {
        stream.close('requested');
      },
    };
    const mcp = quirks.mcp ?? connected;
    if (mcp === 'refuse') session.mcpStatus = async () => Promise.reject(refusal('report MCP status'));
    else if (mcp !== 'absent') session.mcpStatus = async () => mcp(spec);
    return session;
  };
  const replay = (nativeSessionId: string): Item[] =>
    (store.get(nativeSessionId)?.messages ?? []).map((message, index) =>
      message.role === 'user'
        ? { kind: 'user_message', id: `h${index}`, status: 'completed', text: message.content, replay: true }
        : { kind: 'agent_message', id: `h${index}`, status: 'completed', text: message.content },
    );
  return {
    id: 'acp',
    displayName: 'Memory harness',
    discover: async () => ({ found: false, searched: [], hint: '' }),
    health: async () => ({ status: 'ready' }),
    capabilities: async () => computeCapabilities({ implemented: quirks.implemented ?? ALL }),
    async listSessions({ cwd }) {
      return [...store].filter(([, entry]) => !cwd || entry.cwd === cwd).map(([id]) => ({ nativeSessionId: id }));
    },
    async history(nativeSessionId) {
      const history = quirks.history;
      if (history === 'refuse') throw refusal('replay history');
      return history ? history(replay(nativeSessionId)) : replay(nativeSessionId);
    },
    createSession,
  };
}

function target(quirks: Quirks = {}, knownLimitations?: Record<string, string>): ConformanceTarget {
  return {
    id: 'acp',
    ...(knownLimitations ? { knownLimitations } : {}),
    setup: async (server) => ({ harness: memoryHarness(server, quirks), models: { primary: 'a', alternate: 'b' } }),
  };
}

async function verdict(name: string, quirks: Quirks = {}, knownLimitations?: Record<string, string>) {
  const [result] = await runConformance(target(quirks, knownLimitations), {
    behaviours: HARNESS_STATE_BEHAVIOURS,
    only: [name],
  });
  if (!result) throw new Error(`no result for ${name}`);
  return result;
}

describe('harness-state behaviours on a faithful harness', () => {
  it('each passes and demonstrates its capabilities', async () => {
    const results = await runConformance(target(), { behaviours: HARNESS_STATE_BEHAVIOURS });
    expect(results.map((r) => [r.behaviour, r.status, r.reason, r.demonstrated])).toEqual([
      ['mcp server status', 'passed', undefined, ['mcpStatus']],
      ['fork', 'passed', undefined, ['fork']],
      ['history', 'passed', undefined, ['sessionList', 'history']],
    ]);
  });

  it('each decides its own capability and is skipped where the adapter does not implement it', async () => {
    expect(HARNESS_STATE_BEHAVIOURS.map((b) => [b.name, b.evidences])).toEqual([
      ['mcp server status', 'mcpStatus'],
      ['fork', 'fork'],
      ['history', 'history'],
    ]);
    const results = await runConformance(target({ implemented: { sessionList: true } }), {
      behaviours: HARNESS_STATE_BEHAVIOURS,
    });
    expect(results.map((r) => [r.status, r.reason])).toEqual([
      ['skipped', 'the adapter does not implement mcpStatus'],
      ['skipped', 'the adapter does not implement fork'],
      ['skipped', 'the adapter does not implement history'],
    ]);
  });

  it('passes the real echo MCP server in the spec', async () => {
    let seen: SessionSpec['mcpServers'];
    const result = await verdict('mcp server status', {
      mcp: (spec) => {
        seen = spec.mcpServers;
        return connected(spec);
      },
    });
    expect(result.status).toBe('passed');
    expect(seen).toEqual([{ name: 'echo', transport: 'stdio', command: process.execPath, args: [ECHO_SERVER_PATH] }]);
    expect(ECHO_SERVER_PATH).toMatch(/testkit\/fixtures-mcp\/echo-server\.mjs$/);
  });
});

describe('mcp server status', () => {
  it('fails when the server did not attach, naming its state and error', async () => {
    const result = await verdict('mcp server status', {
      mcp: () => [{ name: 'echo', status: 'failed', error: 'spawn ENOENT' }],
    });
    expect(result).toMatchObject({
      status: 'failed',
      reason: 'the MCP server "echo" is failed (spawn ENOENT), not connected',
    });
  });

  it('fails when the connected server lists no echo tool', async () => {
    // (A server never listed is asked for until the deadline, as a harness may list it late.)
    const toolless = await verdict('mcp server status', { mcp: () => [{ name: 'echo', status: 'connected' }] });
    expect(toolless.reason).toBe('the connected MCP server "echo" lists tools undefined, not "echo"');
  });

  it('an honest refusal is limited where known, failed where not, and so is a session without mcpStatus', async () => {
    const known = { 'mcp server status': 'Agent 1.0 reports no MCP status' };
    expect(await verdict('mcp server status', { mcp: 'refuse' }, known)).toMatchObject({
      status: 'limited',
      reason: 'Agent 1.0 reports no MCP status (mcpStatus(): The memory harness cannot report MCP status.)',
    });
    expect((await verdict('mcp server status', { mcp: 'refuse' })).reason).toMatch(/not a known one for acp$/);
    expect((await verdict('mcp server status', { mcp: 'absent' }, known)).status).toBe('limited');
  });
});

describe('fork', () => {
  it('fails when the fork keeps the original native id', async () => {
    const result = await verdict('fork', { fork: 'same-id' });
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/^the fork kept the original native id native-1: a resume, not a fork$/);
  });

  it("fails when the fork's first request lacks the conversation it was forked from", async () => {
    const result = await verdict('fork', { fork: 'forgets' });
    expect(result.reason).toBe("the fork's first request does not hold the conversation it was forked from");
  });

  it('an unsupported_capability refusal is a limitation', async () => {
    const result = await verdict('fork', { fork: 'refuse' }, { fork: 'Agent 1.0 has no fork' });
    expect(result).toMatchObject({
      status: 'limited',
      reason: 'Agent 1.0 has no fork (fork: The memory harness cannot fork.)',
    });
  });
});

describe('history', () => {
  it("fails when the user's own message comes back as synthetic", async () => {
    const result = await verdict('history', {
      history: (items) =>
        items.map((item) => (item.kind === 'user_message' ? { ...item, origin: 'synthetic' as const } : item)),
    });
    expect(result.reason).toBe("the user's own message came back with origin synthetic");
  });

  it("fails when the replay lacks the user's message or the agent's reply", async () => {
    const noUser = await verdict('history', { history: (items) => items.filter((i) => i.kind !== 'user_message') });
    expect(noUser.reason).toBe("history() holds no user message with the turn's text (kinds: agent_message)");
    const noAgent = await verdict('history', { history: (items) => items.filter((i) => i.kind !== 'agent_message') });
    expect(noAgent.reason).toBe("history() holds no agent message with the turn's reply");
  });

  it('an unsupported_capability refusal is a limitation', async () => {
    const result = await verdict('history', { history: 'refuse' }, { history: 'Agent 1.0 keeps no history' });
    expect(result).toMatchObject({
      status: 'limited',
      reason: 'Agent 1.0 keeps no history (history(): The memory harness cannot replay history.)',
    });
  });
});
