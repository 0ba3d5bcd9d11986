// Fail fast and say why (issue 31): a Codex with no sign-in that starts retrying its provider ends the turn with
// `auth_required` and the fix (the check `doctor` makes); a Codex that cannot reach its provider (it retries, then waits for the network) ends the turn
// with `provider_error` once the retries outlast the bound, the retries visible as notices meanwhile. Both
// through `reins run` (the built bin) and the library, against the fake app-server; each ends well within the
// half a minute (the 15 s retry bound plus start-up; 45 s allowed on a loaded machine) instead of the minutes Codex
// itself would wait.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, DaemonInfoSchema } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { createHarness } from '@reins/harnesses';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runCli, startCli } from './cli.js';

const FAKE_CODEX = fakeHarnessPath('codex');
const TEXT_TURN = fileURLToPath(new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url));
/** What Codex 0.171 sends when it lost its provider: a retry, then nothing while it waits for the network. */
const RETRY = {
  method: 'error',
  params: {
    threadId: '{{threadId}}',
    turnId: '{{turnId}}',
    willRetry: true,
    error: { message: 'Reconnecting... waiting for network', codexErrorInfo: null, additionalDetails: null },
  },
};
const UNREACHABLE = { FAKE_CODEX_INJECT: JSON.stringify(RETRY), FAKE_CODEX_SILENT_AFTER: 'turn/started' };

let home: string;
let signedOut: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-cli-fail-fast-'));
  // The text-turn recording plus the answer of a Codex that needs an OpenAI login and has none.
  const account = [
    { dir: 'in', t: 0, frame: { id: 900, method: 'account/read', params: { refreshToken: false } } },
    { dir: 'out', t: 0, frame: { id: 900, result: { account: null, requiresOpenaiAuth: true } } },
  ];
  signedOut = join(home, 'signed-out.jsonl');
  const recorded = await readFile(TEXT_TURN, 'utf8');
  await writeFile(signedOut, `${recorded.trimEnd()}\n${account.map((line) => JSON.stringify(line)).join('\n')}\n`);
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const cliEnv = (transcript: string, knobs: Record<string, string> = {}) => ({
  PATH: process.env.PATH,
  HOME: home,
  REINS_CODEX_BIN: FAKE_CODEX,
  FAKE_CODEX_TRANSCRIPT: transcript,
  ...knobs,
});
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('reins run: fail fast and say why', () => {
  it('a Codex with no sign-in: the turn ends auth_required with the fix at its first retry (exit 1)', async () => {
    const result = await runCli(['run', '-H', 'codex', '--json', '-C', home, 'hi'], {
      env: cliEnv(signedOut, UNREACHABLE),
    });
    expect(result.code, result.stderr).toBe(1);
    const terminal = (lines(result.stdout) as unknown as ReinsEvent[]).find((event) => event.type === 'turn.completed');
    expect(terminal).toMatchObject({ outcome: { status: 'failed', error: { code: 'auth_required' } } });
    expect(JSON.stringify(terminal)).toMatch(/not signed in.*codex login/);
  });

  it('a Codex that cannot reach its provider: retries shown as notices, then provider_error (exit 1)', async () => {
    const result = await runCli(['run', '-H', 'codex', '--json', '-C', home, 'hi'], {
      env: cliEnv(TEXT_TURN, UNREACHABLE),
    });
    expect(result.code, result.stderr).toBe(1);
    const events = lines(result.stdout) as unknown as ReinsEvent[];
    const retry = events.find((event) => event.type === 'notice' && event.kind === 'retry');
    expect(retry).toMatchObject({ message: 'Reconnecting... waiting for network' });
    const terminal = events.find((event) => event.type === 'turn.completed');
    expect(terminal).toMatchObject({
      outcome: { status: 'failed', error: { code: 'provider_error', data: { kind: 'connection_failed' } } },
    });
    expect(events.indexOf(retry as ReinsEvent)).toBeLessThan(events.indexOf(terminal as ReinsEvent));
    expect(JSON.stringify(terminal)).toMatch(/could not reach its model provider.*reins doctor/);
  }, 45_000);

  it('the human output names the error and the fix', async () => {
    const result = await runCli(['run', '-H', 'codex', '-C', home, 'hi'], { env: cliEnv(TEXT_TURN, UNREACHABLE) });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/could not reach its model provider/);
  }, 45_000);
});

describe('reins chat: fail fast and say why', () => {
  it('a message to a Codex with no sign-in ends auth_required with the fix; chat itself exits 0 at end of input', async () => {
    const cli = startCli(['chat', '-H', 'codex', '-C', home], { env: cliEnv(signedOut, UNREACHABLE) });
    await cli.waitForOutput('/quit to leave', 20_000);
    cli.child.stdin?.write('hi\n');
    await cli.waitForOutput(/✗ failed \(auth_required\)/, 20_000);
    cli.child.stdin?.end();
    const result = await cli.done;
    expect(result.stdout).toMatch(/✗ failed \(auth_required\): Codex is not signed in.*codex login/);
    expect(result.code).toBe(0);
  }, 45_000);
});

describe('the library: fail fast and say why', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of ['REINS_CODEX_BIN', 'FAKE_CODEX_TRANSCRIPT', ...Object.keys(UNREACHABLE)]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it.each([
    ['with no sign-in', 'auth_required', () => signedOut],
    ['against an unreachable provider', 'provider_error', () => TEXT_TURN],
  ] as const)(
    'a turn %s ends with %s',
    async (_, code, transcript) => {
      Object.assign(process.env, { REINS_CODEX_BIN: FAKE_CODEX, FAKE_CODEX_TRANSCRIPT: transcript(), ...UNREACHABLE });
      const harness = await createHarness('codex');
      const session = await harness.createSession({ cwd: home });
      try {
        await session.send('hi');
        const seen: ReinsEvent[] = [];
        for await (const event of session.events) {
          seen.push(event);
          if (event.type === 'turn.completed') break;
        }
        expect(seen.some((event) => event.type === 'notice' && event.kind === 'retry')).toBe(true);
        expect(seen.at(-1)).toMatchObject({ outcome: { status: 'failed', error: { code } } });
      } finally {
        await session.close();
      }
    },
    45_000,
  );
});

describe('the daemon: fail fast and say why', () => {
  it('a daemon session with no sign-in ends its turn auth_required, the retry shown first', async () => {
    const env = { ...process.env, REINS_HOME: join(home, 'reins') };
    const daemon = startCli(['daemon'], { env });
    try {
      await daemon.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
      const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'reins', 'daemon.json'), 'utf8')));
      const client = await connect({ url: info.url, token: info.token, WebSocket, requestTimeoutMs: 20_000 });
      try {
        const baseEnv = { PATH: process.env.PATH ?? '', FAKE_CODEX_TRANSCRIPT: signedOut, ...UNREACHABLE };
        const session = await client.createSession('codex', { cwd: home }, { binaryPath: FAKE_CODEX, baseEnv });
        await session.send('hi');
        const seen: ReinsEvent[] = [];
        for await (const event of session.events as AsyncIterable<ReinsEvent>) {
          seen.push(event);
          if (event.type === 'turn.completed') break;
        }
        expect(seen.some((event) => event.type === 'notice' && event.kind === 'retry')).toBe(true);
        expect(seen.at(-1)).toMatchObject({ outcome: { status: 'failed', error: { code: 'auth_required' } } });
      } finally {
        client.close();
      }
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.done;
    }
  }, 45_000);
});
