// The daemon driving the real pinned Codex CLI (harness-clis/) through @reins/client, hermetically:
// Codex talks to the scripted model server on 127.0.0.1 inside the loopback-only namespace. The
// RemoteSession is a core Session, so the testkit's SessionRecorder checks the stream invariants on
// it unchanged; and the whole conformance suite runs through the daemon with the same behaviours
// as against a local Codex session. Restarts: with real Codex and real Claude Code, a session
// survives a daemon restart dormant, and the next turn continues the same conversation (the
// scripted model server sees the turn from before the restart in its request).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, type ReinsClient, type WireHarnessOptions } from '@reins/client';
import type { Harness, ReinsEvent, ToolCallItem } from '@reins/core';
import { createHarness, liveProcessCount } from '@reins/harnesses';
import {
  assertHermetic,
  BEHAVIOURS,
  type ConformanceTarget,
  type HarnessLaunch,
  harnessBinary,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  reply,
  runConformance,
  SessionRecorder,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Daemon, startDaemon } from '../src/index.js';
import { silent } from './helpers.js';

/** The extra model the testkit's Codex home configures for the model-switch behaviour. */
const ALTERNATE_MODEL = 'fake-model-2';

interface Rig {
  server: ModelServer;
  tempHome: TempHome;
  workdir: string;
  daemon: Daemon;
  client: ReinsClient;
  options: WireHarnessOptions;
  models: string[];
  dispose(): Promise<void>;
}

/** Pinned Codex in a hermetic home pointed at `server`, behind an in-process daemon and a client. */
async function daemonRig(server: ModelServer): Promise<Rig> {
  const tempHome = await makeTempHome('reins-daemon-codex-');
  const binary = harnessBinary('codex');
  const launch = await harnessLaunch('codex', {
    modelServerUrl: server.url,
    tempHome,
    binary,
    extraModels: [ALTERNATE_MODEL],
  });
  const workdir = join(tempHome.dir, 'work');
  await mkdir(workdir, { recursive: true });
  const daemon = await startDaemon({
    home: join(tempHome.dir, 'reins'),
    harnesses: ['codex'],
    // What the daemon itself asks Codex (harness/sessions, harness/history) goes to the same hermetic home.
    harnessOptions: { codex: { binaryPath: binary.command, baseEnv: launch.env } },
    logger: silent,
  });
  const client = await connect({ url: daemon.url, token: daemon.token, WebSocket, requestTimeoutMs: 60_000 });
  return {
    server,
    tempHome,
    workdir,
    daemon,
    client,
    options: { binaryPath: binary.command, baseEnv: launch.env, requestTimeoutMs: 30_000 },
    models: launch.home.models,
    async dispose() {
      client.close();
      await daemon.close();
      await tempHome.cleanup();
    },
  };
}

describe('daemon real: Codex through a client', () => {
  let server: ModelServer | undefined;
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.dispose();
    await server?.close();
    rig = undefined;
    server = undefined;
    expect(liveProcessCount()).toBe(0);
  });

  it('a text turn and a shell tool turn complete, with sound streams', async () => {
    await assertHermetic();
    server = await startModelServer({ strict: true });
    rig = await daemonRig(server);
    const session = await rig.client.createSession('codex', { cwd: rig.workdir }, rig.options);
    const recorder = new SessionRecorder(session, 60_000);

    server.enqueue(reply().text('Hello through the daemon.'));
    const text = await recorder.turn('Say hello.');
    expect(text.outcome).toEqual({ status: 'completed' });
    const agentText = recorder
      .turnEvents(text.turnId as string)
      .flatMap((event) =>
        event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
      )
      .join('');
    expect(agentText).toContain('Hello through the daemon.');
    expect(session.nativeSessionId).toBeTruthy();

    server.enqueue(reply().shell('echo reins-daemon-ok'), reply().text('The command ran.'));
    const tool = await recorder.turn('Run the check command.');
    expect(tool.outcome).toEqual({ status: 'completed' });
    const commands = recorder
      .turnEvents(tool.turnId as string)
      .flatMap((event) =>
        event.type === 'item.completed' && event.item.kind === 'tool_call' ? [event.item as ToolCallItem] : [],
      );
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({ status: 'completed', exitCode: 0, tool: { kind: 'command' } });
    expect(commands[0]?.output?.text).toContain('reins-daemon-ok');

    // close() checks the stream invariants (seq without gaps, one terminal per turn, stable ids, ...).
    await recorder.close();
    expect(recorder.events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'requested' });
    expect((await rig.client.listSessions())[0]).toMatchObject({ sessionId: session.id, status: 'closed' });
  });
});

/** The conformance target for Codex, with every session created through the daemon. */
function codexThroughDaemon(): ConformanceTarget {
  return {
    id: 'codex',
    async setup(server) {
      const rig = await daemonRig(server);
      // Discovery, health and the capability matrix come from the same adapter the daemon runs.
      const local = await createHarness('codex', rig.options);
      const harness: Harness = {
        id: 'codex',
        displayName: 'Codex (through the Reins daemon)',
        discover: () => local.discover(),
        health: () => local.health(),
        capabilities: () => local.capabilities(),
        // The conversations Codex keeps, as the daemon lists and replays them (harness/sessions, harness/history).
        listSessions: (options) => rig.client.harnessSessions('codex', options),
        history: (nativeSessionId, options) => rig.client.history('codex', nativeSessionId, options),
        createSession: (spec) => rig.client.createSession('codex', spec, rig.options),
      };
      return {
        harness,
        models: { primary: rig.models[0] ?? 'fake-model', alternate: ALTERNATE_MODEL },
        dispose: () => rig.dispose(),
      };
    },
  };
}

describe('daemon real: the conformance suite on Codex through the daemon', () => {
  for (const behaviour of BEHAVIOURS) {
    it(behaviour.name, async (context) => {
      await assertHermetic();
      const [result] = await runConformance(codexThroughDaemon(), { only: [behaviour.name] });
      if (result?.status === 'skipped') context.skip(result.reason);
      expect(result?.reason ?? '', behaviour.name).toBe('');
      expect(result?.status).toBe('passed');
      expect(liveProcessCount()).toBe(0);
    }, 300_000);
  }
});

/** Reads a RemoteSession until `done` matches (deadline). */
async function readUntil(
  events: AsyncIterable<ReinsEvent>,
  done: (event: ReinsEvent) => boolean,
): Promise<ReinsEvent[]> {
  const seen: ReinsEvent[] = [];
  const iterator = events[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out; events: ${seen.map((e) => e.type).join(', ')}`)), 90_000);
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), deadline]);
      if (next.done) return seen;
      seen.push(next.value);
      if (done(next.value)) return seen;
    }
  } finally {
    clearTimeout(timer);
  }
}

describe.each(['codex', 'claude-code'] as const)('daemon real: %s across a daemon restart', (id) => {
  let server: ModelServer | undefined;
  let tempHome: TempHome | undefined;
  let daemon: Daemon | undefined;
  const clients: ReinsClient[] = [];
  afterEach(async () => {
    for (const reins of clients.splice(0)) reins.close();
    await daemon?.close();
    daemon = undefined;
    await server?.close();
    server = undefined;
    await tempHome?.cleanup();
    tempHome = undefined;
    expect(liveProcessCount()).toBe(0);
  });

  it('the session comes back dormant and the next turn continues the same conversation', async () => {
    await assertHermetic();
    server = await startModelServer({ strict: id === 'codex' });
    tempHome = await makeTempHome(`reins-daemon-restart-${id}-`);
    const binary = harnessBinary(id);
    const launch: HarnessLaunch = await harnessLaunch(id, { modelServerUrl: server.url, tempHome, binary });
    const workdir = join(tempHome.dir, 'work');
    await mkdir(workdir, { recursive: true });
    // Daemon-level options: what a restarted daemon uses to resume (a client's env is never stored).
    const options = {
      home: join(tempHome.dir, 'reins'),
      harnesses: [id],
      logger: silent,
      harnessOptions: { [id]: { binaryPath: binary.command, baseEnv: launch.env, requestTimeoutMs: 30_000 } },
    };
    const open = async () => {
      daemon = await startDaemon(options);
      const reins = await connect({ url: daemon.url, token: daemon.token, WebSocket, requestTimeoutMs: 90_000 });
      clients.push(reins);
      return reins;
    };
    const turnEnd = (turnId: string) => (e: ReinsEvent) => e.type === 'turn.completed' && e.turnId === turnId;

    const first = await open();
    const session = await first.createSession(id, { cwd: workdir });
    server.enqueue(reply().text('I will remember the word pelican.'));
    const sent = await session.send('Remember the word pelican.');
    const before = await readUntil(session.events, turnEnd(sent.turnId));
    expect(before.at(-1)).toMatchObject({ type: 'turn.completed', outcome: { status: 'completed' } });
    const nativeSessionId = session.nativeSessionId;
    expect(nativeSessionId).toBeTruthy();
    for (const reins of clients.splice(0)) reins.close();
    await daemon?.close();
    expect(liveProcessCount()).toBe(0);

    const second = await open();
    const [listing] = await second.listSessions();
    expect(listing).toMatchObject({ sessionId: session.id, status: 'dormant', nativeSessionId });
    const resumed = await second.attach(session.id, { afterSeq: listing?.lastSeq ?? 0 });
    server.enqueue(reply().text('The word was pelican.'));
    const next = await resumed.send('Which word did I ask you to remember?');
    const after = await readUntil(resumed.events, turnEnd(next.turnId));
    expect(after.at(-1)).toMatchObject({ type: 'turn.completed', outcome: { status: 'completed' } });
    expect(after[0]?.seq).toBe((listing?.lastSeq ?? 0) + 1);
    expect(resumed.nativeSessionId).toBe(nativeSessionId);
    // The model sees the turn from before the restart: the same conversation, not a fresh one.
    const last = server.requests.filter((request) => request.scripted).at(-1);
    const body = JSON.stringify(last?.body);
    expect(body).toContain('Remember the word pelican.');
    expect(body).toContain('I will remember the word pelican.');
    expect(body).toContain('Which word did I ask you to remember?');
  });
});
