// The daemon as a UI's whole backend on the real pinned CLIs, hermetically (the scripted model
// server on 127.0.0.1 inside the loopback-only namespace), for Codex and Claude Code:
// - harness/models and harness/capabilities from a `reins daemon` process: models with their
//   efforts and default where the harness says, the matrix with its three layers, `observed`
//   from an evidence record for this very binary (a record for another binary does not count);
// - a conversation made in one daemon run is listed by harness/sessions in a FRESH daemon process
//   (its own REINS_HOME, the same harness home, so only the harness's own store is shared),
//   replayed by harness/history with the harness's machinery classified (user_message.origin),
//   adopted with session/create + spec.resume, and continued: the model server sees the earlier
//   exchange in the continued turn;
// - fork (session/fork and spec.resume.fork) where the daemon's capability matrix says the adapter
//   has it: a new conversation (new native id) whose first request holds the history up to the
//   fork point, and which diverges after (neither side's next request holds the other's message);
//   where it does not, session/fork is refused with unsupported_capability.
// One model server, one hermetic harness home, one in-process daemon and one daemon process per
// harness, shared by that harness's tests.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, DaemonInfoSchema, type ReinsClient, type RemoteSession } from '@reins/client';
import {
  CAPABILITY_KEYS,
  type CapabilityMatrix,
  classifyUserText,
  type HarnessId,
  type Item,
  ReinsError,
  type ReinsEvent,
} from '@reins/core';
import { EvidenceStore, liveProcessCount } from '@reins/harnesses';
import {
  assertHermetic,
  harnessBinary,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  reply,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningCli, startCli } from '../../cli/test/cli.js';
import { type Daemon, startDaemon } from '../src/index.js';
import { EventReader } from './helpers.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const TURN_MS = 90_000;

interface Knobs {
  id: 'codex' | 'claude-code';
  /** Claude Code asks the model on its own (titles, probes): those get the server's default. */
  strict: boolean;
  /** A model the harness accepts for a live switch (the server answers any). */
  alternateModel: string;
  /** The model the harness's catalog marks as its default in the hermetic home. */
  defaultModel: string;
  /** Whether the catalog names each model's default effort (Codex's defaultReasoningEffort). */
  saysDefaultEffort: boolean;
  /** What harness/history replays of the conversation the test makes (whitespace collapsed). */
  history: string[];
  /** The registry rules that name the machinery in the user-role text the model was sent. */
  machinery: string[];
}

const PROMPTS = {
  pelican: 'Remember the word pelican.',
  heron: 'Now remember the word heron too.',
  stalled: 'Count to a thousand, slowly.',
  recall: 'Which two words did I ask you to remember?',
};
const ANSWERS = { pelican: 'I will remember the word pelican.', heron: 'Pelican and heron, noted.' };
const typed = [
  `user(user): ${PROMPTS.pelican}`,
  `agent: ${ANSWERS.pelican}`,
  `user(user): ${PROMPTS.heron}`,
  `agent: ${ANSWERS.heron}`,
  `user(user): ${PROMPTS.stalled}`,
  'agent: One, two',
];

const HARNESSES: Knobs[] = [
  {
    id: 'codex',
    strict: true,
    alternateModel: 'fake-model-2',
    defaultModel: 'fake-model',
    saysDefaultEffort: true,
    // Codex 0.171.0's thread/items/list leaves its own user-role machinery out (the AGENTS.md and
    // environment envelopes, <turn_aborted>): the test checks the model saw them and history did not.
    history: typed,
    machinery: ['codex.user-instructions', 'codex.environment-context', 'codex.turn-aborted'],
  },
  {
    id: 'claude-code',
    strict: false,
    alternateModel: 'claude-sonnet-4-5-20250929',
    defaultModel: 'default',
    saysDefaultEffort: false,
    // Claude Code 2.1.332 writes the live model switch as a /model command record and its output,
    // and the interrupt as a marker, all as user-role entries of its transcript.
    history: [
      ...typed.slice(0, 2),
      'user(synthetic): <command-name>/model</command-name> <command-message>model</command-message> <command-args>claude-sonnet-4-5-20250929</command-args>',
      'user(synthetic): <local-command-stdout>Set model to `claude-sonnet-4-5-20250929`</local-command-stdout>',
      ...typed.slice(2),
      'user(notification): You interrupted the turn.',
    ],
    machinery: [
      'claude-code.system-reminder',
      'claude-code.local-command-caveat',
      'claude-code.command-record',
      'claude-code.local-command-stdout',
      'claude-code.interrupt-marker',
    ],
  },
];

/** One harness's shared rig: the model server, the harness home, an in-process daemon, a daemon process. */
interface Rig {
  knobs: Knobs;
  server: ModelServer;
  tempHome: TempHome;
  workdir: string;
  /** The environment a user's shell would have: the hermetic harness home plus REINS_<ID>_BIN. */
  env: Record<string, string>;
  first: { daemon: Daemon; client: ReinsClient };
  /** A `reins daemon` process of its own REINS_HOME, started on first use. */
  fresh(): Promise<{ cli: RunningCli; client: ReinsClient; home: string }>;
  dispose(): Promise<void>;
}

async function rigFor(knobs: Knobs): Promise<Rig> {
  const server = await startModelServer({ strict: knobs.strict });
  const tempHome = await makeTempHome(`reins-ui-${knobs.id}-`);
  const binary = harnessBinary(knobs.id);
  const launch = await harnessLaunch(knobs.id, {
    modelServerUrl: server.url,
    tempHome,
    binary,
    extraModels: [knobs.alternateModel],
  });
  const workdir = join(tempHome.dir, 'work');
  await mkdir(workdir, { recursive: true });
  await writeFile(join(workdir, 'AGENTS.md'), 'Always answer briefly.\n');
  const variable = `REINS_${knobs.id.toUpperCase().replace(/-/g, '_')}_BIN`;
  const env = { ...launch.env, [variable]: binary.command };
  const daemon = await startDaemon({
    home: join(tempHome.dir, 'reins-first'),
    harnesses: [knobs.id],
    logger: silent,
    harnessOptions: { [knobs.id]: { binaryPath: binary.command, baseEnv: launch.env, requestTimeoutMs: 30_000 } },
  });
  const clients: ReinsClient[] = [];
  const open = async (url: string, token: string) => {
    const reins = await connect({ url, token, WebSocket, requestTimeoutMs: TURN_MS });
    clients.push(reins);
    return reins;
  };
  const first = { daemon, client: await open(daemon.url, daemon.token) };
  let started: Promise<{ cli: RunningCli; client: ReinsClient; home: string }> | undefined;
  let cli: RunningCli | undefined;
  return {
    knobs,
    server,
    tempHome,
    workdir,
    env,
    first,
    fresh() {
      started ??= (async () => {
        const home = join(tempHome.dir, 'reins-fresh');
        cli = startCli(['daemon', '--log-level', 'warn'], { env: { ...env, REINS_HOME: home } });
        await cli.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
        const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')));
        return { cli, client: await open(info.url, info.token), home };
      })();
      return started;
    },
    async dispose() {
      for (const reins of clients.splice(0)) reins.close();
      await daemon.close();
      if (cli && cli.child.exitCode === null && cli.child.signalCode === null) {
        cli.child.kill('SIGTERM');
        const ended = await cli.done;
        expect(ended.code, ended.stderr).toBe(0);
      }
      await server.close();
      await tempHome.cleanup();
    },
  };
}

const turnEnd = (turnId: string) => (event: ReinsEvent) => event.type === 'turn.completed' && event.turnId === turnId;

/** Sends one prompt (the model answers `answer`) and waits for the turn to complete. */
async function turn(rig: Rig, session: RemoteSession, events: EventReader, prompt: string, answer: string) {
  rig.server.when(prompt, reply().text(answer));
  const sent = await session.send(prompt);
  const done = await events.waitFor(turnEnd(sent.turnId), `the turn "${prompt}"`, TURN_MS);
  expect(done).toMatchObject({ outcome: { status: 'completed' } });
}

/** The body of the (last) scripted request that carried `prompt` as its trailing user text. */
function requestBody(rig: Rig, prompt: string): unknown {
  const found = rig.server.requests.filter((request) => request.scripted && request.userText.includes(prompt));
  expect(found.length, `a scripted request for "${prompt}"`).toBeGreaterThan(0);
  return found.at(-1)?.body;
}

/** The request's conversation as text (what the model was shown). */
const shown = (rig: Rig, prompt: string) => JSON.stringify(requestBody(rig, prompt));

/** Each user-role text part of a request: OpenAI Responses `input` (Codex) or Anthropic `messages`. */
function userRoleTexts(body: unknown): string[] {
  const record = (body ?? {}) as { input?: unknown; messages?: unknown };
  const messages = (
    Array.isArray(record.input) ? record.input : Array.isArray(record.messages) ? record.messages : []
  ) as {
    role?: string;
    content?: unknown;
  }[];
  return messages
    .filter((message) => message.role === 'user')
    .flatMap((message) =>
      typeof message.content === 'string'
        ? [message.content]
        : Array.isArray(message.content)
          ? message.content.flatMap((part: { type?: string; text?: unknown }) =>
              (part.type === 'input_text' || part.type === 'text') && typeof part.text === 'string' ? [part.text] : [],
            )
          : [],
    );
}

const texts = (items: readonly Item[]) =>
  items.flatMap((item) =>
    item.kind === 'user_message'
      ? [`user(${item.origin ?? 'user'}): ${item.text.replace(/\s+/g, ' ')}`]
      : item.kind === 'agent_message'
        ? [`agent: ${item.text}`]
        : [],
  );

describe.each(HARNESSES)('ui backend real: $id through the daemon', (knobs) => {
  let rig: Rig;
  beforeAll(async () => {
    await assertHermetic();
    rig = await rigFor(knobs);
  }, 120_000);
  afterAll(async () => {
    await rig?.dispose();
    expect(liveProcessCount()).toBe(0);
  }, 60_000);

  it('harness/models and harness/capabilities: the catalog, and observed from evidence for this binary', async () => {
    const { client, home } = await rig.fresh();
    const [listing] = await client.harnesses().then((all) => all.filter((entry) => entry.id === knobs.id));
    const binary = listing?.health.binary;
    expect(binary?.sha256, JSON.stringify(listing)).toMatch(/^[0-9a-f]{64}$/);
    if (!binary) return;
    // A passing check for this binary, and a failing one of the same capability for another binary.
    const store = new EvidenceStore(join(home, 'evidence.jsonl'));
    const record = {
      harness: knobs.id as HarnessId,
      check: 'ui-backend.real',
      capability: 'history' as const,
      binary: { path: binary.path, ...(binary.version ? { version: binary.version } : {}), sha256: binary.sha256 },
      ...(binary.version ? { harnessVersion: binary.version } : {}),
      reinsVersion: '0.1.0',
      at: Date.now(),
    };
    await store.append([
      { ...record, binary: { ...record.binary, sha256: 'f'.repeat(64) }, passed: false, at: Date.now() + 1 },
      { ...record, passed: true },
    ]);

    const models = await client.models(knobs.id);
    expect(models.filter((model) => model.isDefault).map((model) => model.id)).toEqual([knobs.defaultModel]);
    expect(models.map((model) => model.id)).toContain('fake-model');
    for (const model of models) {
      expect(model.efforts?.length, model.id).toBeGreaterThan(0);
      if (knobs.saysDefaultEffort) expect(model.efforts, model.id).toContain(model.defaultEffort);
    }

    const matrix: CapabilityMatrix = await client.capabilities(knobs.id);
    expect(Object.keys(matrix).sort()).toEqual([...CAPABILITY_KEYS].sort());
    for (const key of ['resume', 'sessionList', 'history'] as const) {
      expect(matrix[key].implemented, key).toMatchObject({ state: 'yes', source: 'adapter' });
    }
    if (knobs.id === 'codex') expect(matrix.fork.implemented).toMatchObject({ state: 'yes', how: 'native' });
    // observed: only the passing record for this binary; nothing observed where no check ran.
    expect(matrix.history.observed).toMatchObject({ state: 'yes', source: 'evidence' });
    expect(matrix.history.observed.evidence).toEqual([
      expect.objectContaining({ passed: true, binary: record.binary }),
    ]);
    expect(matrix.history.testedVersions).toEqual([binary.version]);
    expect(matrix.resume.observed.state).toBe('unknown');
    for (const capability of Object.values(matrix)) {
      expect(['yes', 'no', 'unknown']).toContain(capability.advertised.state);
    }
  }, 120_000);

  it('a conversation from one daemon run: listed, replayed, adopted and continued by a fresh daemon process', async () => {
    const { client: first } = rig.first;
    const session = await first.createSession(knobs.id, { cwd: rig.workdir });
    const events = new EventReader(session.events);
    await turn(rig, session, events, PROMPTS.pelican, ANSWERS.pelican);
    await session.setModel(knobs.alternateModel);
    await turn(rig, session, events, PROMPTS.heron, ANSWERS.heron);
    // An interrupted turn: the harness leaves its marker in the conversation.
    rig.server.when(PROMPTS.stalled, reply().text('One, two').stall());
    const stalled = await session.send(PROMPTS.stalled);
    await events.waitFor(
      (event) => event.type === 'item.delta' && event.turnId === stalled.turnId,
      'the stalled turn streaming',
      TURN_MS,
    );
    await session.interrupt();
    const cancelled = await events.waitFor(turnEnd(stalled.turnId), 'the interrupted turn', TURN_MS);
    expect(cancelled).toMatchObject({ outcome: { status: 'cancelled' } });
    const nativeSessionId = session.nativeSessionId as string;
    expect(nativeSessionId).toBeTruthy();
    await session.close();

    // A fresh daemon process knows nothing of it but what the harness keeps on disk.
    const { client: fresh } = await rig.fresh();
    expect(await fresh.listSessions()).toEqual([]);
    const listed = await fresh.harnessSessions(knobs.id, { cwd: rig.workdir });
    expect(listed.find((summary) => summary.nativeSessionId === nativeSessionId)).toMatchObject({
      title: PROMPTS.pelican,
    });
    const history = await fresh.history(knobs.id, nativeSessionId, { cwd: rig.workdir });
    expect(texts(history)).toEqual(knobs.history);
    expect(history.every((item) => item.kind !== 'user_message' || item.replay === true)).toBe(true);

    const adopted = await fresh.createSession(knobs.id, { cwd: rig.workdir, resume: { nativeSessionId } });
    const adoptedEvents = new EventReader(adopted.events);
    await turn(rig, adopted, adoptedEvents, PROMPTS.recall, 'Pelican and heron.');
    expect(adopted.nativeSessionId).toBe(nativeSessionId);
    expect((await fresh.listSessions()).map((entry) => entry.nativeSessionId)).toEqual([nativeSessionId]);
    const body = requestBody(rig, PROMPTS.recall);
    for (const text of [PROMPTS.pelican, ANSWERS.pelican, PROMPTS.heron, ANSWERS.heron, PROMPTS.stalled]) {
      expect(JSON.stringify(body)).toContain(JSON.stringify(text).slice(1, -1));
    }
    // Every user-role text the model got is either one the user typed or machinery the registry
    // names (the same registry that classified the history above).
    const prompts = new Set(Object.values(PROMPTS));
    const machinery = new Set<string>();
    for (const text of userRoleTexts(body)) {
      const classified = classifyUserText(text);
      if (prompts.has(text.trim())) expect(classified.origin, text).toBe('user');
      else {
        expect(classified.origin, text.slice(0, 200)).not.toBe('user');
        machinery.add(classified.rule ?? '');
      }
    }
    expect([...machinery].sort()).toEqual([...knobs.machinery].sort());
    await adopted.close();
  }, 300_000);
  it('session/fork and spec.resume.fork: new conversations that share the history up to the fork, then diverge', async (context) => {
    const { client } = rig.first;
    const matrix = await client.capabilities(knobs.id);
    if (matrix.fork.implemented.state !== 'yes') context.skip(`the ${knobs.id} adapter has no fork (yet)`);
    const original = await client.createSession(knobs.id, { cwd: rig.workdir });
    const originalEvents = new EventReader(original.events);
    await turn(rig, original, originalEvents, 'Remember the word otter.', 'Otter, noted.');
    const originalId = original.nativeSessionId as string;

    const forked = await client.fork(original.id);
    expect(forked.harness).toBe(knobs.id);
    expect(forked.nativeSessionId).toBeTruthy();
    expect(forked.nativeSessionId).not.toBe(originalId);
    const fork = await client.attach(forked.sessionId, { afterSeq: 0 });
    const forkEvents = new EventReader(fork.events);
    await turn(rig, fork, forkEvents, 'Fork: remember the word lynx.', 'Lynx, noted.');
    // The fork's first request holds the conversation up to the fork point.
    expect(shown(rig, 'Fork: remember the word lynx.')).toContain('Remember the word otter.');
    expect(shown(rig, 'Fork: remember the word lynx.')).toContain('Otter, noted.');

    // After the fork, each side sees only its own messages.
    await turn(rig, original, originalEvents, 'Original: remember the word badger.', 'Badger, noted.');
    const originalNext = shown(rig, 'Original: remember the word badger.');
    expect(originalNext).toContain('Remember the word otter.');
    expect(originalNext).not.toContain('lynx');
    await turn(rig, fork, forkEvents, 'Fork: which words do you know?', 'Otter and lynx.');
    const forkNext = shown(rig, 'Fork: which words do you know?');
    expect(forkNext).toContain('Remember the word otter.');
    expect(forkNext).toContain('Fork: remember the word lynx.');
    expect(forkNext).not.toContain('badger');
    expect(fork.nativeSessionId).toBe(forked.nativeSessionId);

    // The same through session/create: a fork of the conversation as it is now (after badger).
    const second = await client.createSession(knobs.id, {
      cwd: rig.workdir,
      resume: { nativeSessionId: originalId, fork: true },
    });
    const secondEvents = new EventReader(second.events);
    expect([originalId, forked.nativeSessionId]).not.toContain(second.nativeSessionId);
    await turn(rig, second, secondEvents, 'Second fork: which words do you know?', 'Otter and badger.');
    const secondFirst = shown(rig, 'Second fork: which words do you know?');
    expect(secondFirst).toContain('Original: remember the word badger.');
    expect(secondFirst).not.toContain('lynx');

    // The harness keeps all three conversations.
    const listed = (await client.harnessSessions(knobs.id, { cwd: rig.workdir })).map((entry) => entry.nativeSessionId);
    expect(listed).toEqual(expect.arrayContaining([originalId, forked.nativeSessionId, second.nativeSessionId]));
    for (const session of [original, fork, second]) await session.close();
  }, 300_000);

  it('session/fork is refused with unsupported_capability where the adapter has no fork', async (context) => {
    const { client } = rig.first;
    const matrix = await client.capabilities(knobs.id);
    if (matrix.fork.implemented.state === 'yes') context.skip(`the ${knobs.id} adapter has fork`);
    const session = await client.createSession(knobs.id, { cwd: rig.workdir });
    const events = new EventReader(session.events);
    await turn(rig, session, events, 'Remember the word marten.', 'Marten, noted.');
    const refused = await client.fork(session.id).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ReinsError.isInstance(refused) && refused.code).toBe('unsupported_capability');
    expect((refused as Error).message).toContain(knobs.id);
    expect((await client.listSessions()).filter((entry) => entry.status !== 'closed')).toHaveLength(1);
    await session.close();
  }, 120_000);
});
