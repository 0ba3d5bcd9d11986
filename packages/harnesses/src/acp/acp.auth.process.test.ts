// Process level: ACP sign-in (auth.ts) against the fake ACP agent. Its sign-in state lives in a file
// the agent writes itself (FAKE_ACP_AUTH_STATE), as a real agent keeps its own credential: status
// is what session/new answers, login is `authenticate` with the picked method, a terminal method
// hands back the command (never sent to authenticate), and cancel leaves no process.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReinsError } from '@reins/core';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/index.js';
import { createAcpHarness } from './index.js';

const FAKE = fakeHarnessPath('acp');

let dir: string;
let state: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-acp-auth-'));
  state = join(dir, 'signed-in');
});
afterEach(async () => {
  try {
    expect(liveProcessCount()).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

function harness(scenario: unknown = {}, extra: Record<string, string> = {}) {
  return createAcpHarness({
    command: FAKE,
    displayName: 'Fake agent',
    baseEnv: {
      PATH: process.env.PATH,
      FAKE_ACP_SCENARIO: JSON.stringify(scenario),
      FAKE_ACP_AUTH_REQUIRED: '1',
      FAKE_ACP_AUTH_STATE: state,
      FAKE_ACP_LOG: join(dir, 'log.jsonl'),
      ...extra,
    },
    requestTimeoutMs: 5000,
  });
}

/** What the fake agent received, by method. */
function received(method: string): { params: Record<string, unknown> }[] {
  if (!existsSync(join(dir, 'log.jsonl'))) return [];
  return readFileSync(join(dir, 'log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((message) => message.method === method);
}

const isCode = (code: string) => (error: unknown) => ReinsError.isInstance(error) && error.code === code;

describe('ACP sign-in against the fake agent', () => {
  it('status auth_required -> login with the offered method -> status signed in', async () => {
    const { auth } = harness();
    const before = await auth.status();
    expect(before).toMatchObject({ status: 'signed_out', methods: [{ id: 'fake-login', name: 'Fake login' }] });
    expect(before.message).toMatch(/needs a sign-in/);

    const ceremony = await auth.login?.({ method: 'fake-login' });
    expect(await ceremony?.completed).toEqual({ ok: true });
    expect(ceremony?.instructions).toMatch(/accepted the sign-in with Fake login/);
    expect(received('authenticate').map((message) => message.params.methodId)).toEqual(['fake-login']);
    expect(await auth.status()).toEqual({ status: 'signed_in' });
    // Reins told the agent nothing but the method: the agent wrote its own state.
    expect(readFileSync(state, 'utf8')).toBe('signed in with fake-login\n');
  });

  it('the only method offered is used when none is named', async () => {
    const ceremony = await harness().auth.login?.({});
    expect(await ceremony?.completed).toEqual({ ok: true });
    expect(received('authenticate').map((message) => message.params.methodId)).toEqual(['fake-login']);
  });

  it('an unknown method is invalid_input naming the offered ones; several offered need a pick', async () => {
    const scenario = {
      authMethods: [
        { id: 'fake-login', name: 'Fake login' },
        { id: 'other-login', name: 'Other' },
      ],
    };
    const { auth } = harness(scenario);
    await expect(auth.login?.({ method: 'nope' })).rejects.toSatisfy(
      (error: unknown) =>
        isCode('invalid_input')(error) && /"nope".*fake-login, other-login/.test((error as Error).message),
    );
    await expect(auth.login?.({})).rejects.toSatisfy(
      (error: unknown) => isCode('invalid_input')(error) && /pick one of fake-login, other-login/.test(String(error)),
    );
    expect(received('authenticate')).toEqual([]);
  });

  it('an agent that lists no method: login is unsupported_capability', async () => {
    const { auth } = harness({ authMethods: [] });
    await expect(auth.login?.({})).rejects.toSatisfy(isCode('unsupported_capability'));
  });

  it('cancel ends a sign-in the agent is still waiting on, with no process left', async () => {
    const { auth } = harness({}, { FAKE_ACP_AUTH_HANG: '1' });
    const ceremony = await auth.login?.({ method: 'fake-login' });
    if (!ceremony) throw new Error('no ceremony');
    expect(ceremony.instructions).toMatch(/is signing in with Fake login/);
    expect(liveProcessCount()).toBe(1); // the agent waiting in authenticate
    await ceremony.cancel();
    expect(await ceremony.completed).toEqual({ ok: false, message: 'The sign-in was cancelled.' });
    expect(liveProcessCount()).toBe(0);
    await ceremony.cancel(); // idempotent
    expect((await auth.status()).status).toBe('signed_out');
  });

  it('a method the agent refuses at once is an error, not a ceremony', async () => {
    const { auth } = harness({ authErrors: { 'fake-login': { code: -32603, message: 'no browser here' } } });
    await expect(auth.login?.({ method: 'fake-login' })).rejects.toSatisfy(
      (error: unknown) =>
        isCode('harness_unhealthy')(error) &&
        /refused the sign-in with "fake-login".*no browser here/.test(String(error)),
    );
    expect((await auth.status()).status).toBe('signed_out');
  });

  it('a terminal method gives the command to run; running it signs in; authenticate is never sent', async () => {
    const scenario = {
      authMethods: [],
      terminalAuthMethods: [
        { id: 'term', name: 'Terminal login', type: 'terminal', args: ['--login'], env: { FAKE_MODE: 'tui' } },
      ],
    };
    const { auth } = harness(scenario);
    // Listed because Reins' probe says clientCapabilities.auth.terminal (as claude-agent-acp 0.23.1 wants).
    expect((await auth.status()).methods).toEqual([{ id: 'term', name: 'Terminal login' }]);
    expect(received('initialize').at(-1)?.params.clientCapabilities).toMatchObject({ auth: { terminal: true } });
    expect((auth as { command?: string }).command).toBe(`FAKE_MODE=tui ${FAKE} --login`);

    const ceremony = await auth.login?.({ method: 'term' });
    if (!ceremony) throw new Error('no ceremony');
    expect(ceremony.instructions).toBe(
      `Run \`FAKE_MODE=tui ${FAKE} --login\` in a terminal and sign in there; Reins notices when it lands.`,
    );
    expect(liveProcessCount()).toBe(0);
    // The user runs it in their terminal; the agent's own state changes.
    execFileSync(FAKE, ['--login'], { env: { PATH: process.env.PATH, FAKE_ACP_AUTH_STATE: state } });
    expect(await auth.status()).toEqual({ status: 'signed_in' });
    await ceremony.cancel();
    expect(await ceremony.completed).toEqual({ ok: false, message: 'The sign-in was cancelled.' });
    expect(received('authenticate')).toEqual([]);
  });

  it('the legacy _meta terminal-auth form (Copilot CLI 1.0.102) names the whole command', async () => {
    const scenario = {
      authMethods: [
        {
          id: 'copilot-login',
          name: 'Log in with Copilot CLI',
          description: 'Run `copilot login` in the terminal',
          _meta: { 'terminal-auth': { command: '/opt/copilot', args: ['login'], label: 'Copilot Login' } },
        },
      ],
    };
    const { auth } = harness(scenario);
    const ceremony = await auth.login?.({ method: 'copilot-login' });
    expect(ceremony?.instructions).toMatch(/^Run `\/opt\/copilot login` in a terminal/);
    await ceremony?.cancel();
    expect(received('authenticate')).toEqual([]);
  });
});
