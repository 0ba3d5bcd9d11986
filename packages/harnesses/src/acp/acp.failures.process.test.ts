// The generic `acp` harness when the agent misbehaves (fake ACP agent knobs): crash mid-turn,
// garbage and noise, slow start, a hung agent, authentication required.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/index.js';
import { createAcpHarness } from './index.js';
import type { AcpSession } from './session.js';

const FAKE = fakeHarnessPath('acp');

let dir: string;
let cwd: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-acp-fail-'));
  cwd = join(dir, 'work');
  await mkdir(cwd);
});
afterEach(async () => {
  expect(liveProcessCount()).toBe(0);
  await rm(dir, { recursive: true, force: true });
});

function harness(
  scenario: unknown,
  env: Record<string, string> = {},
  extra: { authMethod?: string; requestTimeoutMs?: number } = {},
) {
  return createAcpHarness({
    command: FAKE,
    baseEnv: { PATH: process.env.PATH, FAKE_ACP_SCENARIO: JSON.stringify(scenario), ...env },
    requestTimeoutMs: extra.requestTimeoutMs ?? 5000,
    ...(extra.authMethod ? { authMethod: extra.authMethod } : {}),
  });
}

/** Every wait 30 s at most. */
const record = (session: AcpSession) => new SessionRecorder(session, 30_000);

const of = <T extends ReinsEvent['type']>(events: ReinsEvent[], type: T) =>
  events.filter((event): event is Extract<ReinsEvent, { type: T }> => event.type === type);

describe('acp harness when the agent misbehaves', () => {
  it('a crash mid-turn fails the turn with process_exited and closes the session', async () => {
    const session = (await harness({
      replies: [{ steps: [{ text: 'partial' }, { stderr: 'panic: out of cheese' }, { sleep: 50 }, { crash: 3 }] }],
    }).createSession({ cwd })) as AcpSession;
    const recorder = record(session);
    const sent = await session.send('go');
    const completed = await recorder.terminalOf(sent);
    expect(completed.outcome).toMatchObject({
      status: 'failed',
      error: { code: 'process_exited', message: expect.stringContaining('exited with code 3') },
    });
    expect(completed.outcome.status === 'failed' && completed.outcome.error.message).toContain('out of cheese');
    expect(
      of(recorder.turnEvents(sent.turnId), 'item.completed').find((event) => event.item.kind === 'agent_message')?.item
        .status,
    ).toBe('failed');
    // The adapter closes the session itself when the agent dies.
    const closed = await recorder.waitFor((event) => event.type === 'session.closed', 'session.closed');
    expect(closed).toMatchObject({ reason: 'process_exited' });
    // The one closed-session error of every adapter.
    await expect(session.send('again')).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'session_closed' },
    });
    await recorder.close();
    expect(recorder.ofType('turn.completed')).toHaveLength(1);
  });

  it('survives garbage on stdout and stderr noise: garbage becomes passthrough, the turn completes', async () => {
    const session = (await harness(
      { replies: [{ steps: [{ garbage: 'Loading model... 100%' }, { text: 'fine' }] }] },
      { FAKE_ACP_GARBAGE: '1', FAKE_ACP_STDERR_NOISE: '1' },
    ).createSession({ cwd })) as AcpSession;
    const recorder = record(session);
    const sent = await session.send('go');
    const completed = await recorder.terminalOf(sent);
    expect(completed.outcome).toEqual({ status: 'completed' });
    const garbage = of(recorder.turnEvents(sent.turnId), 'passthrough').map((event) => event.frame);
    expect(garbage).toEqual(
      expect.arrayContaining([{ stdout: 'this is not json {' }, { stdout: 'Loading model... 100%' }]),
    );
    await recorder.close();
  });

  it('waits for a slow start within the request deadline', async () => {
    const session = (await harness({}, { FAKE_ACP_SLOW_START_MS: '1500' }, { requestTimeoutMs: 5000 }).createSession({
      cwd,
    })) as AcpSession;
    const recorder = record(session);
    expect((await recorder.turn('hello')).outcome.status).toBe('completed');
    await recorder.close();
  });

  it('a start slower than the deadline is a timeout, and the process is gone', async () => {
    await expect(
      harness({}, { FAKE_ACP_SLOW_START_MS: '3000' }, { requestTimeoutMs: 500 }).createSession({ cwd }),
    ).rejects.toMatchObject({ code: 'timeout', message: expect.stringContaining('initialize') });
  });

  it('a hung agent: interrupt ends the turn as cancelled after the deadline, with a notice', async () => {
    const session = (await harness({}, { FAKE_ACP_HANG: '1' }, { requestTimeoutMs: 2500 }).createSession({
      cwd,
    })) as AcpSession;
    const recorder = record(session);
    const sent = await session.send('anything');
    await recorder.waitFor((event) => event.type === 'session.status' && event.status === 'running', 'running');
    await session.interrupt();
    const completed = await recorder.terminalOf(sent);
    expect(completed.outcome).toEqual({ status: 'cancelled' });
    expect(of(recorder.turnEvents(sent.turnId), 'notice')[0]?.message).toMatch(/did not confirm the cancel/);
    await recorder.close();
    expect(recorder.ofType('turn.completed')).toHaveLength(1);
  });

  it('"Authentication required" is auth_required with the agent\'s methods; a configured method authenticates', async () => {
    const error = await harness({}, { FAKE_ACP_AUTH_REQUIRED: '1' })
      .createSession({ cwd })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'auth_required',
      data: { authMethods: [{ id: 'fake-login', name: 'Fake login' }] },
    });
    await expect(
      harness({}, { FAKE_ACP_AUTH_REQUIRED: '1' }, { authMethod: 'no-such' }).createSession({ cwd }),
    ).rejects.toMatchObject({ code: 'auth_required', message: expect.stringContaining('fake-login') });
    const session = (await harness({}, { FAKE_ACP_AUTH_REQUIRED: '1' }, { authMethod: 'fake-login' }).createSession({
      cwd,
    })) as AcpSession;
    const recorder = record(session);
    expect((await recorder.turn('hi')).outcome.status).toBe('completed');
    await recorder.close();
  });

  it('a missing binary is binary_not_found, and health says not_installed', async () => {
    const missing = createAcpHarness({ command: join(dir, 'no-such-agent') });
    await expect(missing.createSession({ cwd })).rejects.toMatchObject({ code: 'binary_not_found' });
    expect((await missing.health()).status).toBe('not_installed');
  });
});
