// Process level: Reins drives Reins. `reins bridge acp -H codex` runs as a real subprocess in front
// of the FAKE Codex app-server (harnesses/src/codex/testing/fake.mjs replaying transcripts recorded
// from Codex 0.169.0), and Reins' own generic `acp` harness is the ACP client. A second group
// speaks raw ndjson to the bridge to check the stdio contract: only frames on stdout, and no harness
// process left after stdin EOF or SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness, ReinsEvent, Session } from '@reins/core';
import { createHarness, liveProcessCount } from '@reins/harnesses';
import { assertStreamInvariants, fakeHarnessPath, SessionRecorder, until } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { processesWithMarker, REINS } from './support/processes.js';

const FAKE_CODEX = fakeHarnessPath('codex');
const fixture = (name: string) =>
  fileURLToPath(new URL(`../../harnesses/src/codex/fixtures/${name}.0.169.0.jsonl`, import.meta.url));
/** The Codex thread id in the recorded transcripts. */
const THREAD_ID = '01a22b18-53ed-76d1-97a1-d4d77e83ab03';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'reins-bridge-'));
  return () => rm(cwd, { recursive: true, force: true });
});

function bridgeEnv(transcript: string, marker: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    FAKE_CODEX_TRANSCRIPT: fixture(transcript),
    REINS_BRIDGE_TEST_MARKER: marker,
    // What the bridge remembers goes to the test's folder, never the user's home.
    REINS_HOME: join(cwd, 'reins-home'),
  };
}

describe('reins bridge acp in front of the fake Codex, driven by the Reins acp harness', () => {
  const sessions: Session[] = [];
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.close();
    expect(liveProcessCount()).toBe(0);
  });

  async function open(transcript: string, bridgeArgs: string[] = [], posture: 'ask' | 'bypass' = 'bypass') {
    const marker = randomUUID();
    const harness: Harness = await createHarness('acp', {
      command: process.execPath,
      args: [REINS, 'bridge', 'acp', '-H', 'codex', '--binary', FAKE_CODEX, ...bridgeArgs],
      baseEnv: bridgeEnv(transcript, marker),
      requestTimeoutMs: 15_000,
    });
    const session = await harness.createSession({ cwd, posture });
    sessions.push(session);
    return { session, recorder: new SessionRecorder(session, 15_000), marker };
  }

  const agentTexts = (events: ReinsEvent[]) =>
    events.flatMap((event) =>
      event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
    );

  it('runs a text turn: the text arrives once, the session id is the Codex thread id', async () => {
    const { session, recorder } = await open('text-turn');
    expect(session.nativeSessionId).toBe(THREAD_ID);
    const terminal = await recorder.turn('Say hello.');
    expect(terminal.outcome).toEqual({ status: 'completed' });
    expect(terminal.stopReason).toBe('end_turn');
    const events = recorder.turnEvents(terminal.turnId as string);
    expect(agentTexts(events)).toEqual(['Hello from the scripted model.']);
    const streamed = events.flatMap((event) =>
      event.type === 'item.delta' && event.kind === 'text' ? [event.text] : [],
    );
    expect(streamed.join('')).toBe('Hello from the scripted model.');
    // Token counts cross the bridge on the prompt answer (Codex reported 129 in total).
    expect(terminal.usage?.turn?.total).toBe(129);
    await recorder.close();
    assertStreamInvariants(recorder.events);
  });

  it('cancels a running turn with session/cancel and keeps the session usable', async () => {
    const { recorder } = await open('interrupt');
    const sent = await recorder.session.send('Count slowly.');
    await recorder.waitFor((event) => event.type === 'item.delta' && event.turnId === sent.turnId, 'a delta');
    await recorder.session.interrupt();
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'cancelled' });
    const next = await recorder.turn('Are you there?');
    expect(next.outcome).toEqual({ status: 'completed' });
    await recorder.close();
    assertStreamInvariants(recorder.events);
  });

  it('switches the model (session/set_model: the fake Codex lists no models) and runs the next turn', async () => {
    const { recorder } = await open('model-switch');
    expect((await recorder.turn('First.')).outcome).toEqual({ status: 'completed' });
    const change = await recorder.session.setModel('gpt-5.4-mini');
    expect(change.applied).toBe('live');
    expect(recorder.ofType('session.updated').some((event) => event.model === 'gpt-5.4-mini')).toBe(true);
    expect((await recorder.turn('Second.')).outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });

  it('offers the effort levels as a config option: a listed one switches, another is refused', async () => {
    const { recorder } = await open('text-turn');
    expect((await recorder.session.setEffort('high')).applied).toBe('live');
    const error = await recorder.session.setEffort('ultra' as never).catch((reason: unknown) => reason);
    expect(error).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/offers .*high/) });
    expect((await recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });

  it('surfaces a failed turn as a failed outcome that carries the original Reins error', async () => {
    const { recorder } = await open('error-500');
    const terminal = await recorder.turn('This fails.');
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status !== 'failed') return;
    const error = terminal.outcome.error;
    expect(error.message).toMatch(/high demand/);
    // The bridge answers -32603 with the Reins ErrorInfo as data; the ACP adapter takes it as the error.
    expect(error).toMatchObject({
      code: 'provider_error',
      data: { kind: 'server_error', codexErrorInfo: 'internalServerError' },
    });
    await recorder.close();
  });

  it('asks the ACP client for permission (posture ask) and carries the answer back to the harness', async () => {
    const { recorder } = await open('approvals-accept', ['--posture', 'ask'], 'ask');
    const sent = await recorder.session.send('Touch a file.');
    // The recorded turn asks twice (Codex 0.169.0: the command, then its file write).
    const answered = new Set<string>();
    while (answered.size < 2) {
      const request = await recorder.waitFor(
        (event) => event.type === 'permission.requested' && !answered.has(event.requestId),
        `permission request ${answered.size + 1}`,
      );
      if (request.type !== 'permission.requested') throw new Error('unreachable');
      answered.add(request.requestId);
      expect(request.options.map((option) => option.kind)).toContain('allow_once');
      await recorder.session.respondToPermission(request.requestId, { behavior: 'allow' });
    }
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    expect(recorder.ofType('permission.requested')[0]?.tool.kind).toBe('command');
    expect(recorder.ofType('permission.resolved').map((resolved) => resolved.decision.behavior)).toEqual([
      'allow',
      'allow',
    ]);
    await recorder.close();
  });
});

/** The bridge as a bare subprocess, spoken to in raw ndjson. */
class RawBridge {
  readonly child: ChildProcess;
  readonly lines: unknown[] = [];
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private nextId = 1;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [REINS, 'bridge', 'acp', '-H', 'codex', '--binary', FAKE_CODEX], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString('utf8');
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  frames(): Record<string, unknown>[] {
    return this.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    let answer: Record<string, unknown> | undefined;
    await until(
      () => {
        answer = this.stdout.includes(`"id":${id}`) ? this.frames().find((frame) => frame.id === id) : undefined;
        return answer !== undefined;
      },
      `the answer to ${method}`,
      15_000,
    );
    return answer as Record<string, unknown>;
  }
}

describe('reins bridge acp over raw stdio', () => {
  async function started(marker: string) {
    const bridge = new RawBridge(bridgeEnv('text-turn', marker));
    const init = await bridge.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.result).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: { loadSession: true, sessionCapabilities: { close: {} } },
      agentInfo: { name: 'reins-acp-bridge' },
    });
    const created = await bridge.request('session/new', { cwd, mcpServers: [] });
    expect(created.result).toMatchObject({ sessionId: THREAD_ID });
    // The bridge (node) plus the Codex it started share the marker.
    await until(() => processesWithMarker(marker).length >= 2, 'the harness process to run');
    return bridge;
  }

  it('ends on stdin EOF, closes the harness first, and wrote only JSON-RPC frames to stdout', async () => {
    const marker = randomUUID();
    const bridge = await started(marker);
    bridge.child.stdin?.end();
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end');
    const frames = bridge.frames();
    expect(frames.length).toBeGreaterThanOrEqual(2);
    for (const frame of frames) expect(frame.jsonrpc).toBe('2.0');
    expect(bridge.stderr).toMatch(/stopped \(eof\)/);
  });

  it('ends on SIGTERM and leaves no harness process behind', async () => {
    const marker = randomUUID();
    const bridge = await started(marker);
    bridge.child.kill('SIGTERM');
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end');
    expect(bridge.stderr).toMatch(/stopped \(SIGTERM\)/);
  });

  it('answers a prompt for an unknown session with -32002 and a sentence', async () => {
    const marker = randomUUID();
    const bridge = await started(marker);
    const answer = await bridge.request('session/prompt', {
      sessionId: 'no-such-session',
      prompt: [{ type: 'text', text: 'hi' }],
    });
    expect(answer.error).toMatchObject({ code: -32002, message: expect.stringMatching(/No open session/) });
    bridge.child.stdin?.end();
    await bridge.exited;
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end');
  });
});
