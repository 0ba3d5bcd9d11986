// Process level, judged by the protocol: the bridge is spawned exactly as a Codex client spawns Codex
// (`codex app-server --listen stdio://`, where `codex` is a two-line shim that runs the bridge) in
// front of the FAKE Claude Code (recorded 2.1.197 transcripts), and a scripted client speaks raw
// JSON lines to it. Every message the bridge writes is validated against the pinned Codex's own JSON
// Schema; the turn invariants a strict client relies on are checked on every turn. A fork's turn is
// judged by what the fake would send its model (FAKE_CLAUDE_CONVERSATIONS): the source's conversation.
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CODEX_PROTOCOL_VERSION } from '@reins/bridges';
import { fakeHarnessPath, until } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transcriptViolations } from './support/codex-schema.js';
import {
  HARNESS_FIXTURES,
  JsonLinesPeer,
  type Message,
  processesWithMarker,
  writeCodexShim,
} from './support/processes.js';

const FAKE_CLAUDE = fakeHarnessPath('claude-code');
const fixture = (name: string) => join(HARNESS_FIXTURES, 'claude-code', 'fixtures', `${name}.2.1.197.jsonl`);

let workdir: string;
let shim: string;
beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'reins-codex-client-'));
  await chmod(FAKE_CLAUDE, 0o755);
  shim = await writeCodexShim(workdir, FAKE_CLAUDE);
  return () => rm(workdir, { recursive: true, force: true });
});

const peers: JsonLinesPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) {
    await peer.close();
    expect(transcriptViolations(peer.sent, peer.frames())).toEqual([]);
  }
});

function env(transcript: string, marker: string, knobs: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: workdir,
    TMPDIR: workdir,
    REINS_HOME: join(workdir, 'reins-home'),
    IS_SANDBOX: '1',
    FAKE_CLAUDE_FIXTURE: fixture(transcript),
    REINS_BRIDGE_TEST_MARKER: marker,
    ...knobs,
  };
}

/** `codex app-server --listen stdio://` through the shim, initialized. */
async function launched(transcript: string, extra: string[] = [], knobs: Record<string, string> = {}) {
  const marker = randomUUID();
  const peer = new JsonLinesPeer(
    shim,
    ['app-server', '--listen', 'stdio://', ...extra],
    env(transcript, marker, knobs),
    { cwd: workdir },
  );
  peers.push(peer);
  const init = await peer.request('initialize', {
    clientInfo: { name: 'codex_client', title: 'A Codex client', version: '1.0.0' },
    capabilities: null,
  });
  peer.notify('initialized');
  return { peer, init, marker };
}

/** The invariants of one Codex turn a strict client (Centaur) relies on. */
function checkTurn(frames: Message[], turnId: string) {
  const ofTurn = frames.filter(
    (frame) => frame.params?.turnId === turnId || (frame.params?.turn as { id?: string } | undefined)?.id === turnId,
  );
  const users = (method: string) =>
    ofTurn.filter(
      (frame) =>
        frame.method === method && (frame.params?.item as { type?: string } | undefined)?.type === 'userMessage',
    );
  expect(users('item/started').length).toBeGreaterThanOrEqual(1);
  expect(users('item/completed')).toHaveLength(users('item/started').length);
  const completed = ofTurn.filter((frame) => frame.method === 'turn/completed');
  expect(completed).toHaveLength(1);
  return completed[0]?.params?.turn as {
    status: string;
    items: { type: string; text?: string }[];
    itemsView: string;
    error: unknown;
  };
}

describe('codex app-server --listen stdio://, as a Codex client launches it', () => {
  it('runs a turn, lists, reads and pages the thread, and refuses what it does not serve as Codex does', async () => {
    const { peer, init } = await launched('text-turn');
    const userAgent = (init.result as { userAgent: string }).userAgent;
    expect(/^[^/\s]+\/(\d+\.\d+\.\d+)/.exec(userAgent)?.[1]).toBe(CODEX_PROTOCOL_VERSION);
    const models = (await peer.request('model/list', {})).result as {
      data: { id: string; defaultReasoningEffort: string }[];
    };
    expect(models.data.length).toBeGreaterThan(0);
    const started = await peer.request('thread/start', {
      cwd: workdir,
      approvalPolicy: 'never',
      sandbox: 'danger-full-access',
    });
    const thread = (started.result as { thread: { id: string }; model: string }).thread.id;
    // Claude Code names its model only at the first turn; the thread still names one.
    expect((started.result as { model: string }).model).not.toBe('');
    const turn = await peer.request('turn/start', {
      threadId: thread,
      input: [{ type: 'text', text: 'Say hello', text_elements: [] }],
    });
    const turnId = (turn.result as { turn: { id: string } }).turn.id;
    expect(turnId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    await peer.waitFor((frame) => frame.method === 'turn/completed', 'turn/completed');
    const ended = checkTurn(peer.frames(), turnId);
    expect(ended).toMatchObject({ status: 'completed', itemsView: 'summary' });
    expect(ended.items).toEqual([
      expect.objectContaining({ type: 'agentMessage', text: 'Hello from the scripted model!' }),
    ]);
    expect(peer.frames().some((frame) => frame.method === 'thread/tokenUsage/updated')).toBe(true);

    const list = (await peer.request('thread/list', { limit: 10 })).result as {
      data: { id: string; status: { type: string } }[];
    };
    expect(list.data.find((entry) => entry.id === thread)?.status.type).toBe('idle');
    const read = (await peer.request('thread/read', { threadId: thread, includeTurns: true })).result as {
      thread: { turns: unknown[] };
    };
    expect(Array.isArray(read.thread.turns)).toBe(true);
    expect((await peer.request('thread/loaded/list', {})).result).toEqual({ data: [thread], nextCursor: null });
    const unserved = await peer.request('thread/delete', { threadId: thread });
    expect(unserved.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(
        /^Invalid request: unknown variant `thread\/delete`, expected one of .*`thread\/fork`/,
      ),
    });
    expect((await peer.request('thread/unsubscribe', { threadId: thread })).result).toEqual({ status: 'unsubscribed' });
  });

  it('answers mcpServerStatus/list from Claude Code’s own report and tells each server’s startup', async () => {
    // What the fake Claude Code answers the Agent SDK's mcp_status control request with.
    const reported = [
      { name: 'echo', status: 'connected', tools: [{ name: 'echo' }] },
      { name: 'broken', status: 'failed', error: 'spawn ENOENT' },
    ];
    const { peer } = await launched('text-turn', [], { FAKE_CLAUDE_MCP_STATUS: JSON.stringify(reported) });
    const started = await peer.request('thread/start', {
      cwd: workdir,
      config: { mcp_servers: { echo: { command: 'node', args: ['echo.mjs'] }, broken: { command: 'missing' } } },
    });
    const thread = (started.result as { thread: { id: string } }).thread.id;
    const listed = (await peer.request('mcpServerStatus/list', { threadId: thread, detail: 'toolsAndAuthOnly' }))
      .result as { data: { name: string; runtimeStatus: string; tools: object; toolsError: string | null }[] };
    expect(
      listed.data.map(({ name, runtimeStatus, tools, toolsError }) => ({ name, runtimeStatus, tools, toolsError })),
    ).toEqual([
      { name: 'broken', runtimeStatus: 'failed', tools: {}, toolsError: 'spawn ENOENT' },
      {
        name: 'echo',
        runtimeStatus: 'connected',
        tools: { echo: { name: 'echo', inputSchema: { type: 'object' } } },
        toolsError: null,
      },
    ]);
    const paged = await peer.request('mcpServerStatus/list', { threadId: thread, limit: 1, cursor: '1' });
    expect(paged.result).toMatchObject({ data: [{ name: 'echo' }], nextCursor: null });
    await peer.waitFor(
      (frame) => frame.method === 'mcpServer/startupStatus/updated' && frame.params?.name === 'broken',
      'the startup status of broken',
    );
    const startup = peer.frames().filter((frame) => frame.method === 'mcpServer/startupStatus/updated');
    expect(startup.map((frame) => [frame.params?.name, frame.params?.status, frame.params?.error])).toEqual([
      ['echo', 'ready', null],
      ['broken', 'failed', 'spawn ENOENT'],
    ]);
    expect(startup.every((frame) => frame.params?.threadId === thread)).toBe(true);
  });

  it('takes -c overrides it can honour: the model a thread starts on', async () => {
    const { peer } = await launched('text-turn', [
      '-c',
      'model="haiku"',
      '-c',
      'analytics.enabled=false',
      '--strict-config',
    ]);
    const started = await peer.request('thread/start', { cwd: workdir });
    expect(started.result).toMatchObject({ model: 'haiku', thread: { model: 'haiku' } });
    expect(peer.stderr).toMatch(/ignored Codex-only settings: analytics\.enabled/);
  });

  it('answers an over-long line with a JSON-RPC error and goes on serving', async () => {
    const { peer } = await launched('text-turn');
    const huge = `{"id":"huge","method":"thread/start","params":{"pad":"${'x'.repeat(64 * 1024 * 1024)}"}}`;
    peer.write(huge);
    const refused = await peer.answerTo('huge', 'the over-long line', 60_000);
    expect(refused.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/is \d+ bytes, over the 67108864/),
    });
    const after = await peer.request('thread/start', { cwd: workdir });
    expect(after.result).toMatchObject({ thread: { id: expect.any(String) } });
  });

  it('a frame from a newer or broken harness mid-turn costs the turn nothing', async () => {
    const { peer, marker } = await launched('text-turn', [], {
      FAKE_CLAUDE_INJECT: JSON.stringify({ type: 'future_frame_kind', payload: { deep: [1, 2, 3] } }),
    });
    const thread = ((await peer.request('thread/start', { cwd: workdir })).result as { thread: { id: string } }).thread
      .id;
    const turnId = (
      (
        await peer.request('turn/start', {
          threadId: thread,
          input: [{ type: 'text', text: 'Say hello', text_elements: [] }],
        })
      ).result as { turn: { id: string } }
    ).turn.id;
    await peer.waitFor((frame) => frame.method === 'turn/completed', 'turn/completed');
    expect(checkTurn(peer.frames(), turnId).status).toBe('completed');
    await peer.close();
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end', 15_000);
  });

  it('forks a thread (Claude Code implements fork): a new id, forkedFromId, the fork’s turn sent with the source’s conversation', async () => {
    const conversations = await mkdtemp(join(workdir, 'conversations-'));
    const { peer } = await launched('resume', [], { FAKE_CLAUDE_CONVERSATIONS: conversations });
    const started = await peer.request('thread/start', { cwd: workdir, model: 'haiku' });
    const thread = (started.result as { thread: { id: string } }).thread.id;
    const first = await peer.request('turn/start', {
      threadId: thread,
      input: [{ type: 'text', text: 'Remember the word teal', text_elements: [] }],
    });
    const firstTurn = (first.result as { turn: { id: string } }).turn.id;
    await peer.waitFor((frame) => frame.method === 'turn/completed', 'turn/completed');
    const sourceModel = (
      (await peer.request('thread/read', { threadId: thread })).result as { thread: { model: string } }
    ).thread.model;
    expect(sourceModel).toBeTruthy();
    const forked = await peer.request('thread/fork', { threadId: thread });
    const fork = (forked.result as { thread: { id: string; forkedFromId: string | null }; model: string }).thread;
    expect(fork.id).not.toBe(thread);
    expect(fork.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(fork.forkedFromId).toBe(thread);
    // The fork runs on the model the source runs on (the one its first turn reported).
    expect((forked.result as { model: string }).model).toBe(sourceModel);
    await peer.waitFor(
      (frame) =>
        frame.method === 'thread/started' && (frame.params?.thread as { id?: string } | undefined)?.id === fork.id,
      'the fork’s thread/started',
    );
    const second = await peer.request('turn/start', {
      threadId: fork.id,
      input: [{ type: 'text', text: 'Which word?', text_elements: [] }],
    });
    const forkTurn = (second.result as { turn: { id: string } }).turn.id;
    expect(forkTurn).not.toBe(firstTurn);
    await peer.waitFor(
      (frame) =>
        frame.method === 'turn/completed' && (frame.params?.turn as { id?: string } | undefined)?.id === forkTurn,
      'the fork’s turn/completed',
    );
    expect(checkTurn(peer.frames(), forkTurn).status).toBe('completed');
    // What the fork's turn sent: the source's conversation, then its own message, under the fork's id.
    const requests = (await readFile(join(conversations, 'requests.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { sessionId: string; messages: string[] });
    expect(requests).toEqual([
      { sessionId: thread, messages: ['Remember the word teal'] },
      { sessionId: fork.id, messages: ['Remember the word teal', 'Which word?'] },
    ]);
    expect((await peer.request('thread/read', { threadId: fork.id })).result).toMatchObject({
      thread: { id: fork.id, forkedFromId: thread },
    });
  });

  it('resumes a thread in a new process on the model it ran', async () => {
    const first = await launched('text-turn');
    const started = await first.peer.request('thread/start', { cwd: workdir, model: 'haiku' });
    const thread = (started.result as { thread: { id: string } }).thread.id;
    await first.peer.request('turn/start', {
      threadId: thread,
      input: [{ type: 'text', text: 'Say hello', text_elements: [] }],
    });
    await first.peer.waitFor((frame) => frame.method === 'turn/completed', 'turn/completed');
    await first.peer.close();
    const second = await launched('text-turn');
    const resumed = await second.peer.request('thread/resume', { threadId: thread, cwd: workdir });
    expect(resumed.result).toMatchObject({ thread: { id: thread } });
    // The first turn said which model ran (the fixture's); the resumed thread runs on it again.
    const model = (resumed.result as { model: string }).model;
    expect(model).not.toBe('');
    expect(model).not.toBe('default');
  });
});
