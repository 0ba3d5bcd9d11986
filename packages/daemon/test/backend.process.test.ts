// The daemon as a UI's whole backend, through a real WebSocket and a real SQLite file, on an
// in-process catalog harness (a ScriptedHarness with a model list, capabilities, conversations on
// "disk", sign-in and MCP status): harness/models and harness/capabilities cached per binary
// fingerprint (a new binary is asked again), harness/sessions newest first and paged,
// harness/history with machinery classified by core's registry, session/create adopting a
// conversation, session/fork (a new conversation; refused where the adapter has no fork),
// session/mcpStatus, and sign-in: one ceremony per harness, the watch pushing harness/authChanged
// to every client when the sign-in lands, cancel ending the ceremony, auth in harness/list.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HarnessAuthChangedParams, ReinsClient } from '@reins/client';
import {
  type AuthProbe,
  type CapabilityMatrix,
  computeCapabilities,
  type Discovery,
  type HarnessAuth,
  type Item,
  type LoginCeremony,
  type McpServerStatus,
  type ModelInfo,
  ReinsError,
  type Session,
  type SessionSpec,
  type SessionSummary,
} from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../src/index.js';
import { client, silent } from './helpers.js';
import { ScriptedHarness } from './scripted-harness.js';

const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);

/** A user who signs in at the harness's page: the harness's own status flips, nothing tells Reins. */
class FakeSignIn implements HarnessAuth {
  signedIn = false;
  started = 0;
  cancelled = 0;
  checks = 0;
  readonly command = 'catalog login';
  async status(): Promise<AuthProbe> {
    this.checks++;
    return this.signedIn
      ? { status: 'signed_in', account: 'dev@example.test' }
      : { status: 'signed_out', methods: [{ id: 'browser', name: 'Browser' }] };
  }
  async login(): Promise<LoginCeremony> {
    this.started++;
    let settle: (outcome: { ok: boolean }) => void = () => {};
    const completed = new Promise<{ ok: boolean }>((resolve) => {
      settle = resolve;
    });
    return {
      url: 'http://127.0.0.1:9/device',
      userCode: 'ABCD-1234',
      instructions: 'Open the URL and enter the code.',
      completed,
      cancel: async () => {
        this.cancelled++;
        settle({ ok: false });
      },
    };
  }
}

class CatalogHarness extends ScriptedHarness {
  sha = SHA_A;
  modelReads = 0;
  fork = true;
  readonly auth = new FakeSignIn();
  conversations: SessionSummary[] = [];
  mcp: McpServerStatus[] = [{ name: 'notes', status: 'connected', tools: ['add_note'] }];

  override async discover(): Promise<Discovery> {
    return { found: true, binary: { path: '/fake/catalog', version: '1.0.0', sha256: this.sha, source: 'explicit' } };
  }
  async models(): Promise<ModelInfo[]> {
    this.modelReads++;
    return [
      { id: 'model-a', isDefault: true, efforts: ['low', 'medium', 'high'], defaultEffort: 'medium' },
      { id: `model-for-${this.sha.slice(0, 1)}` },
    ];
  }
  override async capabilities(): Promise<CapabilityMatrix> {
    return computeCapabilities({ implemented: { resume: true, fork: this.fork, history: true, mcpStatus: true } });
  }
  async listSessions(): Promise<SessionSummary[]> {
    return this.conversations;
  }
  async history(nativeSessionId: string): Promise<Item[]> {
    const user = (id: string, text: string): Item => ({
      kind: 'user_message',
      id,
      status: 'completed',
      text,
      replay: true,
    });
    return [
      user('u1', 'Count the files'),
      user(
        'u2',
        '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>x</command-args>',
      ),
      user('u3', '<local-command-stdout>Set model to x</local-command-stdout>'),
      user('u4', '[Request interrupted by user]'),
      user('u5', 'Why does it print [Request interrupted by user]?'),
      { kind: 'agent_message', id: 'a1', status: 'completed', text: `from ${nativeSessionId}` },
    ];
  }
  override async createSession(spec: SessionSpec): Promise<Session> {
    const session = (await super.createSession(spec)) as Session & { mcpStatus?: () => Promise<McpServerStatus[]> };
    session.mcpStatus = async () => this.mcp;
    return session;
  }
}

let home: string;
let daemon: Daemon | undefined;
const clients: ReinsClient[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-backend-'));
});
afterEach(async () => {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close();
  daemon = undefined;
  await rm(home, { recursive: true, force: true });
});

async function start(harness: ScriptedHarness, plain = new ScriptedHarness('pi')) {
  daemon = await startDaemon({
    home,
    harnesses: ['codex', 'pi'],
    logger: silent,
    authPollMs: 20,
    createHarness: async (id) => (id === 'codex' ? harness : plain),
  });
  const reins = await client(daemon.url, daemon.token);
  clients.push(reins);
  return reins;
}

async function another(): Promise<ReinsClient> {
  const target = daemon as Daemon;
  const reins = await client(target.url, target.token);
  clients.push(reins);
  return reins;
}

async function failure(promise: Promise<unknown>): Promise<ReinsError> {
  try {
    await promise;
  } catch (error) {
    if (ReinsError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('catalog', () => {
  it('lists models with efforts and default, cached until the binary changes', async () => {
    const harness = new CatalogHarness('codex');
    const reins = await start(harness);
    const models = await reins.models('codex');
    expect(models[0]).toEqual({
      id: 'model-a',
      isDefault: true,
      efforts: ['low', 'medium', 'high'],
      defaultEffort: 'medium',
    });
    await reins.models('codex');
    expect(harness.modelReads).toBe(1);
    harness.sha = SHA_B; // an upgraded CLI
    expect((await reins.models('codex')).map((model) => model.id)).toContain('model-for-b');
    expect(harness.modelReads).toBe(2);
    const matrix = await reins.capabilities('codex');
    expect(matrix.fork.implemented.state).toBe('yes');
    expect(matrix.steer.implemented.state).toBe('no');
    expect((await failure(reins.models('pi'))).code).toBe('unsupported_capability');
    expect((await failure(reins.models('gemini'))).code).toBe('invalid_input');
  });
});

describe('conversations the harness keeps', () => {
  it('pages newest first and replays history with machinery classified', async () => {
    const harness = new CatalogHarness('codex');
    harness.conversations = [1, 5, 3, 4, 2].map((n) => ({ nativeSessionId: `c${n}`, updatedAt: n * 1000 }));
    const reins = await start(harness);
    const first = await reins.harnessSessions('codex', { limit: 2 });
    const second = await reins.harnessSessions('codex', { limit: 2, offset: 2 });
    const rest = await reins.harnessSessions('codex', { limit: 2, offset: 4 });
    expect([...first, ...second, ...rest].map((s) => s.nativeSessionId)).toEqual(['c5', 'c4', 'c3', 'c2', 'c1']);
    const items = await reins.history('codex', 'c5');
    const origins = items.map((item) =>
      item.kind === 'user_message' ? [item.origin ?? 'user', item.text] : [item.kind],
    );
    expect(origins).toEqual([
      ['user', 'Count the files'],
      ['synthetic', expect.stringContaining('<command-name>')],
      ['synthetic', '<local-command-stdout>Set model to x</local-command-stdout>'],
      ['notification', 'You interrupted the turn.'],
      ['user', 'Why does it print [Request interrupted by user]?'],
      ['agent_message'],
    ]);
    expect((await failure(reins.harnessSessions('pi'))).code).toBe('unsupported_capability');
  });

  it('adopts a conversation with spec.resume and forks it into a new one', async () => {
    const harness = new CatalogHarness('codex');
    const reins = await start(harness);
    const adopted = await reins.createSession('codex', { cwd: home, resume: { nativeSessionId: 'c5' } });
    expect(adopted.nativeSessionId).toBe('c5');
    expect(harness.last.spec.resume).toEqual({ nativeSessionId: 'c5' });
    const forked = await reins.fork(adopted.id);
    expect(forked.sessionId).not.toBe(adopted.id);
    expect(harness.last.spec.resume).toEqual({ nativeSessionId: 'c5', fork: true });
    const native = async () =>
      (await reins.listSessions()).find((s) => s.sessionId === forked.sessionId)?.nativeSessionId;
    await expect.poll(native).toMatch(/^native-/);
    const listed = await reins.listSessions();
    expect(listed.map((s) => s.sessionId).sort()).toEqual([adopted.id, forked.sessionId].sort());
    expect(listed.find((s) => s.sessionId === adopted.id)?.nativeSessionId).toBe('c5');
    harness.fork = false;
    harness.sha = SHA_B; // new binary: capabilities are read again
    expect((await failure(reins.fork(adopted.id))).code).toBe('unsupported_capability');
  });

  it('reports MCP status from the live harness, unsupported where it has none', async () => {
    const harness = new CatalogHarness('codex');
    const reins = await start(harness);
    const session = await reins.createSession('codex', { cwd: home });
    expect(await session.mcpStatus()).toEqual([{ name: 'notes', status: 'connected', tools: ['add_note'] }]);
    const plain = await reins.createSession('pi', { cwd: home });
    expect((await failure(plain.mcpStatus())).code).toBe('unsupported_capability');
    expect((await failure(reins.mcpStatus('no-such-session'))).code).toBe('invalid_input');
  });
});

describe('sign-in', () => {
  it('runs one ceremony per harness and pushes harnessAuthChanged to every client when it lands', async () => {
    const harness = new CatalogHarness('codex');
    const reins = await start(harness);
    const watcher = await another();
    const changes: HarnessAuthChangedParams[] = [];
    watcher.onAuthChanged((change) => changes.push(change));
    expect(await reins.authStatus('codex')).toMatchObject({
      harness: 'codex',
      status: 'signed_out',
      command: 'catalog login',
    });
    const listed = await reins.harnesses();
    expect(listed.find((h) => h.id === 'codex')?.auth?.status).toBe('signed_out');
    const ceremony = await reins.login('codex');
    expect(ceremony).toMatchObject({ url: 'http://127.0.0.1:9/device', userCode: 'ABCD-1234' });
    expect(await reins.login('codex')).toEqual(ceremony); // joined, not a second ceremony
    expect(harness.auth.started).toBe(1);
    expect((await reins.authStatus('codex')).ceremonyId).toBe(ceremony.ceremonyId);
    harness.auth.signedIn = true; // the user finished at the harness's page
    await expect.poll(() => changes.length).toBe(1);
    expect(changes[0]).toEqual({ harness: 'codex', status: 'signed_in', account: 'dev@example.test' });
    expect(harness.auth.cancelled).toBe(1); // the watch ended the ceremony's process
    const after = await reins.authStatus('codex');
    expect(after).toMatchObject({ status: 'signed_in', account: 'dev@example.test' });
    expect(after.ceremonyId).toBeUndefined();
    expect((await failure(reins.cancelLogin(ceremony.ceremonyId))).code).toBe('invalid_input');
  });

  it('harness/list reuses its sign-in check (some start a process) until the state changes', async () => {
    const harness = new CatalogHarness('codex');
    const reins = await start(harness);
    const authOf = async () => (await reins.harnesses()).find((h) => h.id === 'codex')?.auth;
    expect((await authOf())?.status).toBe('signed_out');
    const checks = harness.auth.checks;
    expect((await authOf())?.status).toBe('signed_out');
    expect(harness.auth.checks).toBe(checks);
    // A ceremony shows in the listing at once, and its landing replaces the remembered state.
    const ceremony = await reins.login('codex');
    expect((await authOf())?.ceremonyId).toBe(ceremony.ceremonyId);
    harness.auth.signedIn = true;
    await expect.poll(async () => (await authOf())?.status).toBe('signed_in');
    expect((await authOf())?.ceremonyId).toBeUndefined();
  });

  it('cancel ends the ceremony; a harness without sign-in names the command to run', async () => {
    const harness = new CatalogHarness('codex');
    const reins = await start(harness);
    const ceremony = await reins.login('codex');
    await reins.cancelLogin(ceremony.ceremonyId);
    expect(harness.auth.cancelled).toBe(1);
    expect((await reins.authStatus('codex')).ceremonyId).toBeUndefined();
    const again = await reins.login('codex');
    expect(again.ceremonyId).not.toBe(ceremony.ceremonyId);
    const refused = await failure(reins.login('pi'));
    expect(refused.code).toBe('unsupported_capability');
    expect((await reins.authStatus('pi')).status).toBe('unknown');
  });
});
