// Real tier, judged by the protocol: `codex app-server --listen stdio://` (a two-line shim that runs
// the bridge) in front of the REAL pinned Claude Code, Pi and Codex on the scripted model server, and
// a scripted Codex client. One full transcript per harness: a text turn, a tool turn, a steer, an
// interrupt, an unsupported model and the switch back, list / read / turns / items, a fork whose first
// turn reaches the model with the source's conversation, approvals where the harness asks, and a
// resume in a new process whose history keeps each turn as it ended.
// Every message of every process is validated against the pinned Codex's JSON Schema; Centaur's
// invariants are checked on every turn.
// Run: node packages/testkit/bin/hermetic.mjs -- npx vitest run --project real packages/bridges/test/codex-app-server-transcripts.real.test.ts
import { reply, until } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { transcriptViolations } from './support/codex-schema.js';
import { JsonLinesPeer, type Message } from './support/processes.js';
import {
  codexShim,
  type RealBridgeHome,
  type RealTarget,
  realBridgeHome,
  scriptedRequests,
} from './support/real-bridge.js';

type Turn = {
  id: string;
  status: string;
  items: { type: string; id: string; text?: string }[];
  itemsView: string;
  error: { message: string } | null;
};

const paramsOf = (frame: Message) =>
  (frame.params ?? {}) as Record<string, unknown> & { turnId?: string; threadId?: string };
const itemOf = (frame: Message) => (paramsOf(frame).item ?? {}) as { type?: string; id?: string };
const turnOf = (frame: Message) => (paramsOf(frame).turn ?? {}) as Turn;

/** A Codex client on one bridge process. */
class Client {
  readonly peer: JsonLinesPeer;

  constructor(shim: string, home: RealBridgeHome) {
    this.peer = new JsonLinesPeer(shim, ['app-server', '--listen', 'stdio://'], home.env, { cwd: home.cwd });
    // Approvals are answered as a person would: yes.
    this.peer.child.stdout?.on('data', () => {
      for (const frame of this.peer.frames()) {
        if (typeof frame.method === 'string' && frame.id !== undefined && !this.answered.has(frame.id)) {
          this.answered.add(frame.id);
          this.peer.send({ id: frame.id, result: { decision: 'accept' } });
        }
      }
    });
  }

  private readonly answered = new Set<unknown>();

  async init(): Promise<void> {
    const init = await this.peer.request('initialize', {
      clientInfo: { name: 'scripted_client', title: null, version: '1' },
      capabilities: null,
    });
    expect(init.result).toMatchObject({ userAgent: expect.stringMatching(/^reins-bridge\/\d+\.\d+\.\d+ /) });
    this.peer.notify('initialized');
  }

  async result<T>(method: string, params: unknown, timeoutMs = 120_000): Promise<T> {
    const answer = await this.peer.request(method, params, timeoutMs);
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result as T;
  }

  /** The turn/completed of a turn, once it is there; the turn's invariants checked. */
  async ended(turnId: string, timeoutMs = 180_000): Promise<Turn> {
    await this.peer.waitFor(
      (frame) => frame.method === 'turn/completed' && turnOf(frame).id === turnId,
      `turn/completed of ${turnId}`,
      timeoutMs,
    );
    const frames = this.peer.frames();
    const ofTurn = frames.filter((frame) => paramsOf(frame).turnId === turnId);
    const users = (method: string) =>
      ofTurn.filter((frame) => frame.method === method && itemOf(frame).type === 'userMessage');
    expect(users('item/started').length, 'a userMessage item started').toBeGreaterThanOrEqual(1);
    expect(users('item/completed').length, 'every userMessage completed').toBe(users('item/started').length);
    const completed = frames.filter((frame) => frame.method === 'turn/completed' && turnOf(frame).id === turnId);
    expect(completed, 'exactly one turn/completed').toHaveLength(1);
    return turnOf(completed[0] as Message);
  }

  async startTurn(threadId: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
    const started = await this.result<{ turn: { id: string } }>('turn/start', {
      threadId,
      input: [{ type: 'text', text, text_elements: [] }],
      ...extra,
    });
    return started.turn.id;
  }

  violations() {
    return transcriptViolations(this.peer.sent, this.peer.frames());
  }
}

async function transcript(target: RealTarget): Promise<void> {
  const home = await realBridgeHome(target);
  const { server } = home;
  const shim = await codexShim(home);
  const clients: Client[] = [];
  try {
    const first = new Client(shim, home);
    clients.push(first);
    await first.init();
    const models = await first.result<{ data: { id: string; defaultReasoningEffort: string }[] }>('model/list', {});
    expect(Array.isArray(models.data)).toBe(true);
    const started = await first.result<{ thread: { id: string }; model: string }>('thread/start', {
      cwd: home.cwd,
      model: home.model,
      approvalPolicy: 'never',
      sandbox: 'danger-full-access',
    });
    const threadId = started.thread.id;
    // The model as the harness names it (Pi 0.73.1: provider/model).
    const model = started.model;
    expect(model.endsWith(home.model)).toBe(true);

    // A text turn.
    server.enqueue(reply().text('Hello from the scripted model.'));
    const text = await first.ended(await first.startTurn(threadId, 'Say hello'));
    expect(text).toMatchObject({ status: 'completed', itemsView: 'summary' });
    expect(text.items.map((item) => item.text)).toEqual(['Hello from the scripted model.']);

    // A tool turn.
    server.enqueue(reply().shell('echo bridged-output'), reply().text('Ran it.'));
    const toolTurn = await first.startTurn(threadId, 'Run echo');
    await first.ended(toolTurn);
    const command = first.peer
      .frames()
      .find(
        (frame) =>
          frame.method === 'item/completed' &&
          paramsOf(frame).turnId === toolTurn &&
          itemOf(frame).type === 'commandExecution',
      );
    expect((command?.params?.item as { aggregatedOutput?: string } | undefined)?.aggregatedOutput ?? '').toMatch(
      /bridged-output/,
    );

    // A steer: the input joins the running turn (natively, or as its next part where the harness queues it).
    server.enqueue(reply().text('First answer, slowly, word by word.').delayMs(150), reply().text('Steered answer.'));
    const before = scriptedRequests(server);
    const steerTurn = await first.startTurn(threadId, 'First question');
    await until(() => scriptedRequests(server) > before, 'the first request of the steered turn', 120_000);
    const steered = await first.result<{ turnId: string }>('turn/steer', {
      threadId,
      expectedTurnId: steerTurn,
      input: [{ type: 'text', text: 'Second question', text_elements: [] }],
    });
    expect(steered.turnId).toBe(steerTurn);
    expect((await first.ended(steerTurn)).status).toBe('completed');
    await until(
      () => server.requests.some((request) => JSON.stringify(request.body).includes('Second question')),
      'the steer text to reach the model',
      15_000,
    );

    // An interrupt.
    server.enqueue(reply().text('Working on it').stall());
    const beforeStall = scriptedRequests(server);
    const stallTurn = await first.startTurn(threadId, 'Start a long answer');
    await until(() => scriptedRequests(server) > beforeStall, 'the stalled request', 120_000);
    await first.result('turn/interrupt', { threadId, turnId: stallTurn });
    expect((await first.ended(stallTurn)).status).toBe('interrupted');
    server.reset();

    // An unsupported model fails its turn (or its turn/start); the thread goes back to its own model.
    for (let i = 0; i < 3; i++) server.enqueue(reply().httpError(404, undefined));
    const bad = await first.peer.request('turn/start', {
      threadId,
      input: [{ type: 'text', text: 'Hello?', text_elements: [] }],
      model: 'no-such-model-xyz',
    });
    let failedTurn: string | undefined;
    if (bad.error) expect(bad.error.message).toMatch(/unsupported model/i);
    else {
      failedTurn = (bad.result as { turn: { id: string } }).turn.id;
      const failed = await first.ended(failedTurn);
      expect(failed.status).toBe('failed');
      expect(failed.error?.message).toMatch(/unsupported model/i);
    }
    server.reset();
    server.enqueue(reply().text('Back on my own model.'));
    expect((await first.ended(await first.startTurn(threadId, 'Still there?', { model }))).status).toBe('completed');

    // Reading back what the thread is.
    const list = await first.result<{ data: { id: string }[] }>('thread/list', { cwd: home.cwd, limit: 50 });
    expect(list.data.map((thread) => thread.id)).toContain(threadId);
    const turns = await first.result<{ data: Turn[] }>('thread/turns/list', { threadId, itemsView: 'summary' });
    expect(turns.data.length).toBeGreaterThan(0);
    await first.result('thread/read', { threadId, includeTurns: true });
    await first.result('thread/items/list', { threadId, limit: 5 });

    // A fork (every target implements fork): a new thread holding the source's conversation, whose
    // first turn reaches the model with the source's messages in it.
    const forked = await first.result<{
      model: string;
      thread: { id: string; forkedFromId: string | null; turns: Turn[] };
    }>('thread/fork', { threadId });
    const forkId = forked.thread.id;
    expect(forkId).not.toBe(threadId);
    expect(forked.thread.forkedFromId).toBe(threadId);
    expect(forked.model).toBe(model);
    expect(forked.thread.turns.map((turn) => turn.id)).toContain(text.id);
    server.enqueue(reply().text('Forked answer.'));
    const forkTurn = await first.startTurn(forkId, 'What did I ask first?');
    expect((await first.ended(forkTurn)).status).toBe('completed');
    const forkRequest = server.requests.find((request) =>
      JSON.stringify(request.body).includes('What did I ask first?'),
    );
    expect(JSON.stringify(forkRequest?.body)).toContain('Say hello');
    expect(JSON.stringify(forkRequest?.body)).toContain('Hello from the scripted model.');
    await first.result('thread/unsubscribe', { threadId: forkId });

    // Approvals, where the harness asks (posture ask: approvalPolicy untrusted).
    const asking = await first.peer.request('thread/start', {
      cwd: home.cwd,
      model: home.model,
      approvalPolicy: 'untrusted',
    });
    if (asking.error) {
      // Pi 0.73.1 has no permission system: a thread that must ask is refused, with a sentence.
      expect(asking.error.message).toMatch(/approval|posture|ask/i);
    } else {
      const askThread = (asking.result as { thread: { id: string } }).thread.id;
      server.enqueue(reply().shell('touch approved.txt'), reply().text('Done.'));
      await first.ended(await first.startTurn(askThread, 'Touch a file'));
      expect(first.peer.frames().some((frame) => frame.method === 'item/commandExecution/requestApproval')).toBe(true);
      await first.result('thread/unsubscribe', { threadId: askThread });
    }
    await first.result('thread/unsubscribe', { threadId });
    await first.peer.close();

    // A new process resumes the thread: its history keeps each turn as it ended.
    const second = new Client(shim, home);
    clients.push(second);
    await second.init();
    const resumed = await second.result<{ model: string; thread: { turns: Turn[] } }>('thread/resume', {
      threadId,
      cwd: home.cwd,
    });
    expect(resumed.model).toBe(model);
    const byId = new Map(resumed.thread.turns.map((turn) => [turn.id, turn]));
    expect(byId.get(stallTurn)?.status).toBe('interrupted');
    if (failedTurn) expect(byId.get(failedTurn)?.status).toBe('failed');
    const steeredBack = byId.get(steerTurn);
    expect(steeredBack?.items.filter((item) => item.type === 'userMessage').length).toBe(2);
    server.enqueue(reply().text('Resumed.'));
    expect((await second.ended(await second.startTurn(threadId, 'And now?'))).status).toBe('completed');
    await second.peer.close();
  } finally {
    for (const client of clients) await client.peer.close();
    await home.dispose();
    for (const client of clients) expect(client.violations()).toEqual([]);
  }
}

describe('codex app-server --listen stdio:// (the bridge) in front of the real harnesses: every message schema-valid', () => {
  for (const target of ['claude-code', 'pi', 'codex'] as const) {
    it(`a full transcript behind ${target}`, () => transcript(target), 600_000);
  }
});
