// Process level: spec.resume.fork on ACP agents, against the fake ACP agent: session/fork where the
// agent advertises sessionCapabilities.fork (a new native id on a copy of the conversation, which
// then diverges), unsupported_capability where it does not, and resume_failed when the agent
// answers the source's own id (two sessions must never share one conversation).
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Item, ReinsError, type SessionSpec } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/index.js';
import { createAcpHarness } from './index.js';

const FAKE = fakeHarnessPath('acp');
const FORKING = {
  agentCapabilities: {
    loadSession: true,
    sessionCapabilities: { list: {}, resume: {}, close: {}, fork: {} },
  },
};

let dir: string;
let cwd: string;
const opened: SessionRecorder[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-acp-fork-'));
  cwd = join(dir, 'work');
  await mkdir(cwd);
});
afterEach(async () => {
  try {
    await SessionRecorder.closeAll(opened.splice(0));
    expect(liveProcessCount()).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

function harness(scenario: unknown, extra: Record<string, string> = {}) {
  return createAcpHarness({
    command: FAKE,
    baseEnv: {
      PATH: process.env.PATH,
      FAKE_ACP_SCENARIO: JSON.stringify(scenario),
      FAKE_ACP_STORE: join(dir, 'store'),
      FAKE_ACP_LOG: join(dir, 'log.jsonl'),
      ...extra,
    },
    requestTimeoutMs: 5000,
  });
}

async function open(h: ReturnType<typeof harness>, spec: Partial<SessionSpec> = {}) {
  const session = await h.createSession({ cwd, ...spec });
  const recorder = new SessionRecorder(session, 30_000);
  opened.push(recorder);
  return { session, recorder };
}

function received(method: string): { params: Record<string, unknown> }[] {
  return readFileSync(join(dir, 'log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((message) => message.method === method);
}

const texts = (items: Item[]) =>
  items.map((item) => (item.kind === 'user_message' || item.kind === 'agent_message' ? item.text : item.kind));

describe('ACP fork against the fake agent', () => {
  it('session/fork gives a new conversation holding the source history, and the two diverge', async () => {
    const h = harness(FORKING);
    const source = await open(h);
    await source.recorder.turn('Remember 42.');
    const sourceId = source.session.nativeSessionId as string;
    await source.recorder.close();

    const fork = await open(h, { resume: { nativeSessionId: sourceId, fork: true } });
    const forkId = fork.session.nativeSessionId as string;
    expect(forkId).toMatch(/^fake-fork-/);
    expect(forkId).not.toBe(sourceId);
    expect(received('session/fork').map((message) => message.params)).toEqual([
      { cwd, mcpServers: [], sessionId: sourceId },
    ]);
    expect(received('session/load')).toEqual([]);
    await fork.recorder.turn('Only in the fork.');
    await fork.recorder.close();

    expect(texts(await h.history(forkId, { cwd }))).toEqual([
      'Remember 42.',
      'echo: Remember 42.',
      'Only in the fork.',
      'echo: Only in the fork.',
    ]);
    expect(texts(await h.history(sourceId, { cwd }))).toEqual(['Remember 42.', 'echo: Remember 42.']);
    const matrix = await h.capabilities();
    expect(matrix.fork.implemented.state).toBe('yes');
    expect(matrix.fork.advertised.state).toBe('yes');
  });

  it('an agent without sessionCapabilities.fork: unsupported_capability, no process left', async () => {
    const h = harness({});
    await expect(h.createSession({ cwd, resume: { nativeSessionId: 'any', fork: true } })).rejects.toSatisfy(
      (error: unknown) =>
        ReinsError.isInstance(error) &&
        error.code === 'unsupported_capability' &&
        error.data?.field === 'resume.fork' &&
        /sessionCapabilities\.fork/.test(error.message),
    );
    expect(liveProcessCount()).toBe(0);
    expect((await h.capabilities()).fork.advertised.state).toBe('no');
  });

  it('an agent that answers the source id again: resume_failed', async () => {
    const h = harness(FORKING, { FAKE_ACP_FORK_SAME_ID: '1' });
    const source = await open(h);
    await source.recorder.turn('Hello.');
    const sourceId = source.session.nativeSessionId as string;
    await expect(h.createSession({ cwd, resume: { nativeSessionId: sourceId, fork: true } })).rejects.toSatisfy(
      (error: unknown) =>
        ReinsError.isInstance(error) && error.code === 'resume_failed' && /without a new sessionId/.test(error.message),
    );
  });

  it('forking an unknown conversation: resume_failed with the agent’s reason', async () => {
    const h = harness(FORKING);
    await expect(h.createSession({ cwd, resume: { nativeSessionId: 'missing', fork: true } })).rejects.toSatisfy(
      (error: unknown) =>
        ReinsError.isInstance(error) &&
        error.code === 'resume_failed' &&
        /could not fork session missing.*Resource not found/.test(error.message),
    );
  });
});
