// Real tier, ACP v2: `reins bridge acp -H claude-code` in front of the REAL pinned Claude Code on the
// scripted model server, driven by the ACP SDK's own experimental v2 client: initialize (v2), a prompt
// acknowledged then running / idle, a command upserted to completion, and the session resumed in a new
// bridge process with its history replayed before the current state and the answer. Every message
// either side wrote is validated against the SDK's schema/v2/schema.json.
// Run: node packages/testkit/bin/hermetic.mjs -- npx vitest run --project real packages/bridges/test/acp-bridge-v2-claude.real.test.ts
import { type ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import { reply, until } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { acpV2Violations } from './support/acp-schema.js';
import { REINS } from './support/processes.js';
import { type RealBridgeHome, realBridgeHome } from './support/real-bridge.js';

type Update = Record<string, unknown> & { sessionUpdate: string };

interface Wire {
  child: ChildProcess;
  fromClient: Record<string, unknown>[];
  fromAgent: Record<string, unknown>[];
}

function tap(into: Record<string, unknown>[]) {
  return new TransformStream<v2.AnyMessage, v2.AnyMessage>({
    transform(message, controller) {
      into.push(structuredClone(message) as Record<string, unknown>);
      controller.enqueue(message);
    },
  });
}

/** A bridge process in front of the real Claude Code, with the SDK's v2 client on its stdio. */
async function v2Bridge(home: RealBridgeHome, wires: Wire[]) {
  const child = spawn(process.execPath, [REINS, 'bridge', 'acp', '-H', 'claude-code', '--binary', home.binaryPath], {
    env: home.env,
    cwd: home.cwd,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const wire: Wire = { child, fromClient: [], fromAgent: [] };
  wires.push(wire);
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
    .client({ name: 'v2-real-test' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params.update as unknown as Update);
    })
    .connect({ readable: toClient.readable, writable: toAgent.writable });
  const init = await connection.agent.request('initialize', {
    protocolVersion: 2,
    info: { name: 'v2-real-test', version: '1.0.0' },
  });
  const stop = async () => {
    connection.close();
    child.stdin?.end();
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
  };
  return { connection, updates, init, stop };
}

const idle = (updates: Update[]) =>
  updates.filter((update) => update.sessionUpdate === 'state_update' && update.state === 'idle');

describe('reins bridge acp (v2) in front of the real Claude Code', () => {
  it('runs a command turn as upserts with running/idle, then resumes in a new process with replay', async () => {
    const home = await realBridgeHome('claude-code');
    const wires: Wire[] = [];
    try {
      const first = await v2Bridge(home, wires);
      expect(first.init.protocolVersion).toBe(2);
      const { sessionId } = await first.connection.agent.request('session/new', { cwd: home.cwd });
      home.server.enqueue(reply().shell('echo hello-from-v2'), reply().text('The command ran.'));
      const ack = await first.connection.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'Run the command please.' }],
      });
      await until(() => idle(first.updates).length > 0, 'the idle state', 180_000);
      expect(idle(first.updates)[0]).toMatchObject({ stopReason: 'end_turn' });
      const states = first.updates.filter((update) => update.sessionUpdate === 'state_update');
      expect(states.map((update) => update.state)).toEqual(['running', 'idle']);
      expect(first.updates.find((update) => update.sessionUpdate === 'user_message')).toMatchObject({
        messageId: ack.messageId,
      });
      const tool = first.updates.filter((update) => update.sessionUpdate === 'tool_call_update');
      expect(new Set(tool.map((update) => update.toolCallId)).size).toBe(1);
      expect(tool.at(-1)).toMatchObject({ status: 'completed' });
      expect(JSON.stringify(tool)).toContain('hello-from-v2');
      await first.stop();

      // A new bridge process: the conversation comes back as replayed messages, then the state, then the answer.
      const second = await v2Bridge(home, wires);
      await second.connection.agent.request('session/resume', {
        sessionId,
        cwd: home.cwd,
        replayFrom: { type: 'start' },
      });
      const kinds = second.updates.map((update) => update.sessionUpdate);
      expect(kinds.at(-1)).toBe('state_update');
      const replayedUser = second.updates.filter((update) => update.sessionUpdate === 'user_message');
      expect(JSON.stringify(replayedUser)).toContain('Run the command please.');
      home.server.enqueue(reply().text('Still here.'));
      await second.connection.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'Still there?' }],
      });
      await until(() => idle(second.updates).some((update) => update.stopReason === 'end_turn'), 'the turn', 180_000);
      const last = home.server.requests.filter((request) => request.scripted).at(-1);
      expect(JSON.stringify(last?.body)).toContain('Run the command please.');
      await second.stop();
    } finally {
      for (const wire of wires) if (wire.child.exitCode === null) wire.child.kill('SIGTERM');
      await home.dispose();
      for (const wire of wires) expect(acpV2Violations(wire.fromClient, wire.fromAgent)).toEqual([]);
    }
  }, 600_000);
});
