// Process level: Reins drives Reins over the Codex app-server protocol. `reins bridge codex-app-server
// -H claude-code` runs as a real subprocess in front of the FAKE Claude Code (claude-code/testing/
// fake.mjs replaying transcripts recorded from Claude Code 2.1.197), and Reins' own Codex
// adapter is the client: its `codex` binary is a launcher script that execs the bridge, so the
// adapter's own `app-server --strict-config` arguments reach the bridge as they would a real Codex.
// A second group speaks raw JSON lines to the bridge: the protocol errors, only frames on stdout, and
// no harness process left after stdin EOF or SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODEX_PROTOCOL_VERSION } from '@reins/bridges';
import type { ReinsEvent, Session, ToolCallItem } from '@reins/core';
import { createHarness, liveProcessCount } from '@reins/harnesses';
import { assertStreamInvariants, fakeHarnessPath, SessionRecorder, until } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { processesWithMarker, REINS, writeCodexShim } from './support/processes.js';

const FAKE_CLAUDE = fakeHarnessPath('claude-code');
const fixture = (name: string) =>
  fileURLToPath(new URL(`../../harnesses/src/claude-code/fixtures/${name}.2.1.197.jsonl`, import.meta.url));

let workdir: string;
let launcher: string;
beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'reins-codex-bridge-'));
  await chmod(FAKE_CLAUDE, 0o755);
  launcher = await writeCodexShim(workdir, FAKE_CLAUDE);
  return () => rm(workdir, { recursive: true, force: true });
});

function bridgeEnv(transcript: string, marker: string, knobs: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: workdir,
    TMPDIR: workdir,
    // The fake runs as root in CI containers; Claude Code's bypass posture wants this there.
    IS_SANDBOX: '1',
    FAKE_CLAUDE_FIXTURE: fixture(transcript),
    REINS_BRIDGE_TEST_MARKER: marker,
    ...knobs,
  };
}

const agentTexts = (events: ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
  );

describe('reins bridge codex-app-server in front of the fake Claude Code, driven by the Reins Codex adapter', () => {
  const sessions: Session[] = [];
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.close();
    expect(liveProcessCount()).toBe(0);
  });

  async function open(transcript: string, knobs: Record<string, string> = {}, posture: 'ask' | 'bypass' = 'bypass') {
    const marker = randomUUID();
    const harness = await createHarness('codex', {
      binaryPath: launcher,
      baseEnv: bridgeEnv(transcript, marker, knobs),
      requestTimeoutMs: 15_000,
    });
    const session = await harness.createSession({ cwd: workdir, posture });
    sessions.push(session);
    return { session, recorder: new SessionRecorder(session, 15_000), marker };
  }

  it('runs a text turn: the text arrives once, whole, and the thread id is the Claude session id', async () => {
    const { session, recorder } = await open('text-turn');
    // Claude Code's session id is preset by the adapter, so the thread id is known at thread/start.
    expect(session.nativeSessionId).toMatch(/^[0-9a-f-]{36}$/);
    const started = recorder.ofType('session.started')[0];
    // The client reads the first version of the initialize userAgent: the Codex protocol the bridge speaks.
    expect(started?.harnessVersion).toBe(CODEX_PROTOCOL_VERSION);
    const terminal = await recorder.turn('Say hello');
    expect(terminal.outcome).toEqual({ status: 'completed' });
    const events = recorder.turnEvents(terminal.turnId as string);
    expect(agentTexts(events)).toEqual(['Hello from the scripted model!']);
    const streamed = events.flatMap((event) =>
      event.type === 'item.delta' && event.kind === 'text' ? [event.text] : [],
    );
    expect(streamed.join('')).toBe('Hello from the scripted model!');
    // The thinking block crosses as a reasoning item.
    const reasoning = events.find((event) => event.type === 'item.completed' && event.item.kind === 'reasoning');
    expect(reasoning).toMatchObject({ item: { kind: 'reasoning', text: 'Thinking it over.' } });
    // Claude Code reported input and output tokens; the thread total crosses as Codex's total.
    expect(terminal.usage?.total).toMatchObject({ input: 120, output: 9 });
    await recorder.close();
    assertStreamInvariants(recorder.events);
  });

  it('carries a command with its output as a Codex commandExecution', async () => {
    const { recorder } = await open('bash-turn');
    const terminal = await recorder.turn('Run echo');
    expect(terminal.outcome).toEqual({ status: 'completed' });
    const events = recorder.turnEvents(terminal.turnId as string);
    const command = events.find(
      (event): event is ReinsEvent & { type: 'item.completed'; item: ToolCallItem } =>
        event.type === 'item.completed' && event.item.kind === 'tool_call',
    )?.item;
    expect(command).toMatchObject({
      tool: { kind: 'command', name: 'exec_command', title: 'echo hi-from-bash' },
      status: 'completed',
      input: { command: 'echo hi-from-bash', cwd: workdir },
    });
    expect(command?.output?.text).toContain('hi-from-bash');
    expect(
      events.some((event) => event.type === 'item.started' && event.item.id === command?.id),
      'the command was announced with item/started',
    ).toBe(true);
    expect(agentTexts(events)).toEqual(['The command printed hi-from-bash.']);
    await recorder.close();
    assertStreamInvariants(recorder.events);
  });

  it('interrupts a running turn with turn/interrupt: the turn ends cancelled', async () => {
    const { session, recorder } = await open('text-turn', { FAKE_CLAUDE_HANG: '1' });
    const sent = await session.send('hang');
    await recorder.waitFor((event) => event.type === 'session.status' && event.status === 'running', 'running');
    await session.interrupt();
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'cancelled' });
    await recorder.close();
    assertStreamInvariants(recorder.events);
  });

  it('surfaces a provider failure as a failed turn that keeps the harness Reins error', async () => {
    const { recorder } = await open('provider-500');
    const terminal = await recorder.turn('hello');
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status !== 'failed') return;
    expect(terminal.outcome.error).toMatchObject({
      code: 'provider_error',
      message: expect.stringMatching(/API Error: 500/),
      data: { kind: 'server_error' },
    });
    await recorder.close();
  });

  it('surfaces an unknown model as unsupported_model (Codex modelNotFound)', async () => {
    const { recorder } = await open('model-unsupported');
    const terminal = await recorder.turn('hello');
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status !== 'failed') return;
    expect(terminal.outcome.error.code).toBe('unsupported_model');
    expect(terminal.outcome.error.message).toMatch(/unsupported model/);
    expect(terminal.outcome.error.data).toMatchObject({ model: 'claude-nonexistent-9' });
    await recorder.close();
  });

  const SCHEMA = {
    type: 'object',
    properties: { answer: { type: 'string' }, n: { type: 'integer' } },
    required: ['answer', 'n'],
    additionalProperties: false,
  };

  it('carries structured output as the final agent message, which the Codex adapter parses', async () => {
    const { recorder } = await open('structured-valid');
    const terminal = await recorder.turn('Answer.', { outputSchema: SCHEMA });
    expect(terminal.outcome).toEqual({ status: 'completed' });
    // Claude Code returned it through its StructuredOutput tool; Codex clients read the last message.
    expect(terminal.structuredOutput).toEqual({ answer: 'forty-two', n: 42 });
    expect(agentTexts(recorder.turnEvents(terminal.turnId as string)).at(-1)).toBe('{"answer":"forty-two","n":42}');
    await recorder.close();
    assertStreamInvariants(recorder.events);
  });

  it('fails a turn the harness could not fit to the schema with structured_output_invalid (the code rides in additionalDetails)', async () => {
    const { recorder } = await open('structured-invalid');
    const terminal = await recorder.turn('Answer.', { outputSchema: SCHEMA });
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status !== 'failed') return;
    // Codex has no error kind for it: the bridge sends codexErrorInfo `other` plus the Reins error in
    // additionalDetails, and the Codex adapter takes that back whole.
    expect(terminal.outcome.error.code).toBe('structured_output_invalid');
    await recorder.close();
  });

  it('steers into a running turn on a harness without steer: the input runs inside the same Codex turn', async () => {
    const { session, recorder } = await open('queued-follow-up', { FAKE_CLAUDE_FRAME_DELAY_MS: '150' });
    const first = await session.send('First question');
    await recorder.waitFor((event) => event.type === 'item.delta' && event.turnId === first.turnId, 'a delta');
    const steered = await session.send('Second question', { mode: 'steer' });
    expect(steered).toEqual({ turnId: first.turnId, delivery: 'steered' });
    const terminal = await recorder.terminalOf(first);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    // The Codex turn ended only after the steered input was answered.
    expect(agentTexts(recorder.turnEvents(first.turnId))).toEqual(['First answer, slowly.', 'Second answer.']);
    await recorder.close();
    assertStreamInvariants(recorder.events);
  });

  it('asks the Codex client for approval (posture ask: approvalPolicy untrusted) and carries the answer back', async () => {
    const { session, recorder } = await open('ask-allow', {}, 'ask');
    const sent = await session.send('Run it');
    const request = await recorder.waitFor((event) => event.type === 'permission.requested', 'a permission request');
    if (request.type !== 'permission.requested') throw new Error('unreachable');
    // Claude Code asks to Write a file: the bridge asked with item/fileChange/requestApproval, and the
    // Codex adapter offers Codex's decisions for it.
    expect(request.tool).toMatchObject({ kind: 'file_change', name: 'apply_patch' });
    expect(request.options.map((option) => option.id)).toEqual(['accept', 'acceptForSession', 'decline']);
    await session.respondToPermission(request.requestId, { behavior: 'allow' });
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    expect(recorder.ofType('permission.resolved').map((event) => [event.decision.behavior, event.by])).toEqual([
      ['allow', 'client'],
    ]);
    await recorder.close();
  });

  it('leaves no process behind when the Codex adapter closes the bridge (stdin EOF)', async () => {
    const { session, recorder, marker } = await open('text-turn');
    await recorder.turn('Say hello');
    // The launcher became the bridge (exec), which runs the fake Claude Code: both carry the marker.
    await until(() => processesWithMarker(marker).length >= 2, 'the bridge and the harness to run');
    await session.close();
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end');
    await recorder.close();
  });
});

/** The bridge as a bare subprocess, spoken to in raw JSON lines (no "jsonrpc" member, as Codex). */
class RawBridge {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private nextId = 1;

  constructor(env: Record<string, string>) {
    this.child = spawn(
      process.execPath,
      [REINS, 'bridge', 'codex-app-server', '-H', 'claude-code', '--binary', FAKE_CLAUDE],
      { env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
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

  write(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  async request(method: string, params?: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    this.write(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
    return this.answerTo(id, method);
  }

  async answerTo(id: number | null, what: string): Promise<Record<string, unknown>> {
    let answer: Record<string, unknown> | undefined;
    await until(
      () => {
        answer = this.frames().find((frame) => frame.id === id && ('result' in frame || 'error' in frame));
        return answer !== undefined;
      },
      `the answer to ${what}`,
      15_000,
    );
    return answer as Record<string, unknown>;
  }
}

describe('reins bridge codex-app-server over raw stdio', () => {
  async function started(marker: string) {
    const bridge = new RawBridge(bridgeEnv('text-turn', marker));
    const early = await bridge.request('thread/start', { cwd: workdir });
    // Codex 0.169.0 refuses every request before initialize.
    expect(early.error).toMatchObject({ code: -32600, message: 'Not initialized' });
    const init = await bridge.request('initialize', { clientInfo: { name: 'raw', title: null, version: '1' } });
    expect(init.result).toMatchObject({
      userAgent: `reins-bridge/${CODEX_PROTOCOL_VERSION} (reins 0.1.0; claude-code 2.1.197)`,
    });
    bridge.write('{"method":"initialized"}');
    const thread = await bridge.request('thread/start', { cwd: workdir });
    const threadId = (thread.result as { thread: { id: string } }).thread.id;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    // The bridge (node) plus the Claude Code it started share the marker.
    await until(() => processesWithMarker(marker).length >= 2, 'the harness process to run');
    return { bridge, threadId };
  }

  it('answers unserved methods as Codex does, bad params with -32602 naming the field, garbage with -32700', async () => {
    const marker = randomUUID();
    const { bridge, threadId } = await started(marker);
    const unknown = await bridge.request('thread/delete', { threadId });
    expect(unknown.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(
        /^Invalid request: unknown variant `thread\/delete`, expected one of .*`turn\/start`/,
      ),
    });
    const noInput = await bridge.request('turn/start', { threadId, input: [] });
    expect(noInput.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^input: /),
      data: { field: 'input' },
    });
    const audio = await bridge.request('turn/start', { threadId, input: [{ type: 'localAudio', path: '/a.wav' }] });
    expect(audio.error).toMatchObject({ code: -32602, data: { field: 'input[0].type' } });
    const relative = await bridge.request('thread/start', { cwd: 'relative/dir' });
    expect(relative.error).toMatchObject({ code: -32602, data: { field: 'cwd' } });
    const noThread = await bridge.request('turn/start', { threadId: 'nope', input: [{ type: 'text', text: 'hi' }] });
    expect(noThread.error).toMatchObject({ code: -32600, message: 'thread not found: nope' });
    bridge.write('this is not json');
    const garbage = await bridge.answerTo(null, 'a line that is not JSON');
    expect(garbage.error).toMatchObject({ code: -32700 });
    bridge.child.stdin?.end();
    await bridge.exited;
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end');
  });

  it('ends on stdin EOF, closes the harness first, and wrote only protocol frames to stdout', async () => {
    const marker = randomUUID();
    const { bridge, threadId } = await started(marker);
    bridge.child.stdin?.end();
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end');
    const frames = bridge.frames();
    for (const frame of frames) expect('method' in frame || 'id' in frame).toBe(true);
    expect(frames.some((frame) => frame.method === 'thread/started')).toBe(true);
    expect(frames.find((frame) => frame.method === 'thread/closed')?.params).toEqual({ threadId });
    expect(bridge.stderr).toMatch(/stopped \(eof\)/);
  });

  it('goes on when the client closed its end of stdout (EPIPE), and still ends cleanly on stdin EOF', async () => {
    const marker = randomUUID();
    const { bridge, threadId } = await started(marker);
    bridge.child.stdout?.destroy();
    // Its answer and the turn's notifications now meet a pipe nobody reads.
    bridge.write(
      JSON.stringify({
        id: 100,
        method: 'turn/start',
        params: { threadId, input: [{ type: 'text', text: 'Say hello' }] },
      }),
    );
    await until(() => /stdout: .*EPIPE/.test(bridge.stderr), 'the bridge to log the broken stdout');
    bridge.write(JSON.stringify({ id: 101, method: 'thread/loaded/list', params: {} }));
    bridge.child.stdin?.end();
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end');
    expect(bridge.stderr).toMatch(/stopped \(eof\)/);
  });

  it('ends on SIGTERM and leaves no harness process behind', async () => {
    const marker = randomUUID();
    const { bridge } = await started(marker);
    bridge.child.kill('SIGTERM');
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end');
    expect(bridge.stderr).toMatch(/stopped \(SIGTERM\)/);
  });
});
