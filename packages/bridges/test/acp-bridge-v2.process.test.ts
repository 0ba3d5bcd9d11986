// Process level, ACP v2: `reins bridge acp -H codex` as a real subprocess in front of the FAKE Codex
// app-server (harnesses/src/codex/testing/fake.mjs replaying transcripts recorded from Codex 0.169.0),
// driven over its stdio by the ACP SDK's own experimental v2 client. Every frame either side wrote is
// checked against the SDK's schema/v2/schema.json. Then Reins drives Reins in v2: the Reins ACP adapter
// asked for v2 (harness option protocolVersion: 2) as the client of the same bridge.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import type { ReinsEvent } from '@reins/core';
import { createHarness, liveProcessCount } from '@reins/harnesses';
import { assertStreamInvariants, fakeHarnessPath, SessionRecorder, until } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { acpV2Violations } from './support/acp-schema.js';
import { REINS } from './support/processes.js';

const FAKE_CODEX = fakeHarnessPath('codex');
const fixture = (name: string) =>
  fileURLToPath(new URL(`../../harnesses/src/codex/fixtures/${name}.0.169.0.jsonl`, import.meta.url));

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'reins-bridge-v2-'));
  return () => rm(cwd, { recursive: true, force: true });
});

type Update = Record<string, unknown> & { sessionUpdate: string };

const running: { child: ChildProcess; fromClient: Record<string, unknown>[]; fromAgent: Record<string, unknown>[] }[] =
  [];
afterEach(async () => {
  for (const bridge of running.splice(0)) {
    bridge.child.stdin?.end();
    if (bridge.child.exitCode === null) await new Promise((resolve) => bridge.child.once('exit', resolve));
    expect(acpV2Violations(bridge.fromClient, bridge.fromAgent)).toEqual([]);
  }
});

function tap(into: Record<string, unknown>[]) {
  return new TransformStream<v2.AnyMessage, v2.AnyMessage>({
    transform(message, controller) {
      into.push(structuredClone(message) as Record<string, unknown>);
      controller.enqueue(message);
    },
  });
}

/** The bridge in front of the fake Codex replaying `transcript`, and the SDK v2 client on its stdio. */
async function bridgeV2(transcript: string) {
  const child = spawn(process.execPath, [REINS, 'bridge', 'acp', '-H', 'codex', '--binary', FAKE_CODEX], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      FAKE_CODEX_TRANSCRIPT: fixture(transcript),
      REINS_HOME: join(cwd, 'reins-home'),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const wire = { child, fromClient: [] as Record<string, unknown>[], fromAgent: [] as Record<string, unknown>[] };
  running.push(wire);
  const stream = v2.ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
  );
  const toAgent = tap(wire.fromClient);
  const toClient = tap(wire.fromAgent);
  void toAgent.readable.pipeTo(stream.writable).catch(() => {});
  void stream.readable.pipeTo(toClient.writable).catch(() => {});
  const updates: Update[] = [];
  const connection = v2
    .client({ name: 'v2-process-test' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params.update as unknown as Update);
    })
    .connect({ readable: toClient.readable, writable: toAgent.writable });
  const init = await connection.agent.request('initialize', {
    protocolVersion: 2,
    info: { name: 'v2-process-test', version: '1.0.0' },
  });
  return { connection, updates, init };
}

const idle = (updates: Update[]) =>
  updates.filter((update) => update.sessionUpdate === 'state_update' && update.state === 'idle');

describe('reins bridge acp in front of the fake Codex, driven by the SDK v2 client', () => {
  it('initialize v2, a prompt acknowledged, running, a command upserted to completion, then idle', async () => {
    const { connection, updates, init } = await bridgeV2('shell-command');
    expect(init).toMatchObject({ protocolVersion: 2, info: { name: 'reins-acp-bridge' } });
    const { sessionId } = await connection.agent.request('session/new', { cwd });
    const ack = await connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Run echo.' }],
    });
    expect(typeof ack.messageId).toBe('string');
    await until(() => idle(updates).length > 0, 'the idle state', 20_000);
    const states = updates.filter((update) => update.sessionUpdate === 'state_update').map((update) => update.state);
    expect(states).toEqual(['running', 'idle']);
    expect(idle(updates)[0]).toMatchObject({ stopReason: 'end_turn' });
    expect(updates.find((update) => update.sessionUpdate === 'user_message')).toMatchObject({
      messageId: ack.messageId,
    });
    const kinds = updates.map((update) => update.sessionUpdate);
    expect(kinds).not.toContain('tool_call');
    const tool = updates.filter((update) => update.sessionUpdate === 'tool_call_update');
    expect(tool.length).toBeGreaterThan(0);
    expect(new Set(tool.map((update) => update.toolCallId)).size).toBe(1);
    expect(tool[0]).toMatchObject({ kind: 'execute' });
    expect(tool.at(-1)).toMatchObject({ status: 'completed' });
    connection.close();
  }, 60_000);

  it('session/cancel ends the running turn: idle with cancelled, and the session takes the next prompt', async () => {
    const { connection, updates } = await bridgeV2('interrupt');
    const { sessionId } = await connection.agent.request('session/new', { cwd });
    await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Count slowly.' }] });
    await until(() => updates.some((update) => update.sessionUpdate === 'agent_message_chunk'), 'a chunk', 20_000);
    await connection.agent.notify('session/cancel', { sessionId });
    await until(() => idle(updates).length > 0, 'the idle state', 20_000);
    expect(idle(updates)[0]).toMatchObject({ stopReason: 'cancelled' });
    await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Are you there?' }] });
    await until(() => idle(updates).length > 1, 'the second idle state', 20_000);
    expect(idle(updates)[1]).toMatchObject({ stopReason: 'end_turn' });
    connection.close();
  }, 60_000);
});

describe('the Reins ACP adapter in v2, in front of reins bridge acp (fake Codex)', () => {
  async function open(transcript: string) {
    const frames: string[] = [];
    const harness = await createHarness('acp', {
      command: process.execPath,
      args: [REINS, 'bridge', 'acp', '-H', 'codex', '--binary', FAKE_CODEX],
      baseEnv: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        FAKE_CODEX_TRANSCRIPT: fixture(transcript),
        REINS_HOME: join(cwd, 'reins-home'),
      },
      requestTimeoutMs: 15_000,
      protocolVersion: 2,
      tap: (direction, text) => {
        if (direction === 'out') frames.push(text);
      },
    });
    const session = await harness.createSession({ cwd });
    return { recorder: new SessionRecorder(session, 15_000), frames };
  }

  const texts = (events: ReinsEvent[]) =>
    events.flatMap((event) =>
      event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
    );

  it('negotiates v2, and a command turn ends once, with its text once and the command completed', async () => {
    const { recorder, frames } = await open('shell-command');
    const terminal = await recorder.turn('Run echo.');
    expect(terminal.outcome).toEqual({ status: 'completed' });
    expect(terminal.stopReason).toBe('end_turn');
    // The agent answered initialize with version 2 and ended the turn with a state_update.
    expect(frames.some((line) => line.includes('"protocolVersion":2'))).toBe(true);
    expect(frames.some((line) => line.includes('"state_update"'))).toBe(true);
    const events = recorder.turnEvents(terminal.turnId as string);
    const tools = events.flatMap((event) =>
      event.type === 'item.completed' && event.item.kind === 'tool_call' ? [event.item] : [],
    );
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ status: 'completed', tool: { kind: 'command' } });
    const said = texts(events);
    expect(said.length).toBeGreaterThan(0);
    expect(new Set(said).size).toBe(said.length);
    expect(recorder.events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
    await recorder.close();
    assertStreamInvariants(recorder.events);
    expect(liveProcessCount()).toBe(0);
  }, 60_000);

  it('interrupt() ends the turn cancelled (session/cancel, then idle) and the next turn completes', async () => {
    const { recorder } = await open('interrupt');
    const sent = await recorder.session.send('Count slowly.');
    await recorder.waitFor((event) => event.type === 'item.delta' && event.turnId === sent.turnId, 'a delta');
    await recorder.session.interrupt();
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'cancelled' });
    expect((await recorder.turn('Are you there?')).outcome).toEqual({ status: 'completed' });
    await recorder.close();
    assertStreamInvariants(recorder.events);
  }, 60_000);
});
