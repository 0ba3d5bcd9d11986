// The daemon as a UI's whole backend on the real pinned CLIs, hermetically (the scripted model
// server on 127.0.0.1 inside the loopback-only namespace), for Codex, Claude Code and one ACP agent
// (claude-agent-acp):
// - harness/models and harness/capabilities from a `reins daemon` process: models with their
//   efforts and default where the harness says, the matrix with its three layers, `observed`
//   from an evidence record for this very binary (a record for another binary does not count);
// - a conversation made in one daemon run is listed by harness/sessions in a FRESH daemon process
//   (its own REINS_HOME, the same harness home, so only the harness's own store is shared),
//   replayed by harness/history with the harness's machinery classified (user_message.origin),
//   adopted with session/create + spec.resume, and continued: the model server sees the earlier
//   exchange in the continued turn, and every user-role text it got is typed or named by core's
//   system-text registry.
// Known gaps are registered with it.fails and named in the test title. Fork: ui-backend-fork.real.test.ts.
import { join } from 'node:path';
import { CAPABILITY_KEYS, type CapabilityMatrix, classifyUserText, type HarnessId, type Item } from '@reins/core';
import { EvidenceStore, liveProcessCount } from '@reins/harnesses';
import { assertHermetic, reply } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventReader } from './helpers.js';
import {
  HARNESS_RIGS,
  type Rig,
  type RigKnobs,
  requestBody,
  rigFor,
  TURN_MS,
  turn,
  turnEnd,
  userRoleTexts,
} from './ui-backend-rig.js';

interface Knobs extends RigKnobs {
  /** The model the harness's catalog marks as its default in the hermetic home. */
  defaultModel: string;
  /** Whether the catalog names each model's efforts, and its default effort (Codex's defaultReasoningEffort). */
  saysEfforts: boolean;
  saysDefaultEffort: boolean;
  /** The titles harness/sessions may give the conversation the test makes (the first is the usual one). */
  titles: string[];
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

const [CODEX, CLAUDE_CODE, CLAUDE_AGENT_ACP] = HARNESS_RIGS as [RigKnobs, RigKnobs, RigKnobs];

const HARNESSES: Knobs[] = [
  {
    ...CODEX,
    defaultModel: 'fake-model',
    saysEfforts: true,
    saysDefaultEffort: true,
    titles: [PROMPTS.pelican],
    // Codex 0.171.0's thread/items/list leaves its own user-role machinery out (the AGENTS.md and
    // environment envelopes, <turn_aborted>): the test checks the model saw them and history did not.
    history: typed,
    machinery: ['codex.user-instructions', 'codex.environment-context', 'codex.turn-aborted'],
  },
  {
    ...CLAUDE_CODE,
    defaultModel: 'default',
    saysEfforts: true,
    saysDefaultEffort: false,
    titles: [PROMPTS.pelican],
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
  {
    ...CLAUDE_AGENT_ACP,
    // claude-agent-acp 0.101.0 (the @agentclientprotocol pin) lists the hermetic home's model as its default,
    // where 0.23.1 listed 'default'.
    defaultModel: 'fake-model',
    saysEfforts: false,
    saysDefaultEffort: false,
    // claude-agent-acp's session/list titles a conversation with the Agent SDK's summary: the
    // transcript's last-prompt record, which Claude Code writes some time after the prompt; when the
    // session closed before it did (seen once in a loaded run), the first prompt.
    titles: [PROMPTS.stalled, PROMPTS.pelican],
    // 0.101.0 switches models through its Agent SDK without /model command records in the transcript
    // (0.23.1 wrote one per switch); the interrupt marker stays.
    history: [...typed, 'user(notification): You interrupted the turn.'],
    machinery: [
      'claude-code.system-reminder',
      'claude-code.local-command-caveat',
      'claude-code.command-record',
      'claude-code.local-command-stdout',
      'claude-code.interrupt-marker',
    ],
  },
];

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

  it("harness/models: the default model, and every model's efforts and default effort where the harness says", async () => {
    const { client } = await rig.fresh();
    const models = await client.models(knobs.id);
    expect(models.filter((model) => model.isDefault).map((model) => model.id)).toEqual([knobs.defaultModel]);
    expect(models.map((model) => model.id)).toContain('fake-model');
    for (const model of models) {
      if (knobs.saysEfforts) expect(model.efforts?.length, model.id).toBeGreaterThan(0);
      if (knobs.saysDefaultEffort) expect(model.efforts, model.id).toContain(model.defaultEffort);
    }
  }, 120_000);

  it('harness/capabilities: three layers, observed only from evidence for this binary', async () => {
    const { client, home } = await rig.fresh();
    const [listing] = await client.harnesses().then((all) => all.filter((entry) => entry.id === knobs.id));
    const binary = listing?.health.binary;
    expect(binary?.sha256, JSON.stringify(listing)).toMatch(/^[0-9a-f]{64}$/);
    if (!binary) return;
    // A passing check for this binary (in the daemon's REINS_HOME), and a newer failing one of the
    // same capability for another binary, which must not count.
    const record = {
      harness: knobs.id as HarnessId,
      check: 'ui-backend.real',
      capability: 'history' as const,
      binary: { path: binary.path, ...(binary.version ? { version: binary.version } : {}), sha256: binary.sha256 },
      ...(binary.version ? { harnessVersion: binary.version } : {}),
      reinsVersion: '0.1.0',
      at: Date.now(),
    };
    await new EvidenceStore(join(home, 'evidence.jsonl')).append([
      { ...record, binary: { ...record.binary, sha256: 'f'.repeat(64) }, passed: false, at: Date.now() + 1 },
      { ...record, passed: true },
    ]);

    const matrix: CapabilityMatrix = await client.capabilities(knobs.id);
    expect(Object.keys(matrix).sort()).toEqual([...CAPABILITY_KEYS].sort());
    for (const key of ['resume', 'sessionList', 'history'] as const) {
      expect(matrix[key].implemented, key).toMatchObject({ state: 'yes', source: 'adapter' });
    }
    if (knobs.id === 'codex') expect(matrix.fork.implemented).toMatchObject({ state: 'yes', how: 'native' });
    for (const capability of Object.values(matrix)) {
      expect(['yes', 'no', 'unknown']).toContain(capability.advertised.state);
    }
    expect(matrix.history.observed).toMatchObject({ state: 'yes', source: 'evidence' });
    expect(matrix.history.observed.evidence).toEqual([
      expect.objectContaining({ passed: true, binary: record.binary }),
    ]);
    // A binary that reports no version (claude-agent-acp runs as a script) has no tested version to list.
    expect(matrix.history.testedVersions).toEqual(binary.version ? [binary.version] : []);
    // Nothing observed where no check ran.
    expect(matrix.resume.observed.state).toBe('unknown');
  }, 120_000);

  // The conversation made in the first daemon, for the fresh daemon's tests after it.
  let conversation: string | undefined;
  const made = () => {
    expect(conversation, 'the conversation of the first daemon run').toBeTruthy();
    return conversation as string;
  };

  it('a conversation is made in one daemon run: turns, a live model switch, an interrupted turn', async () => {
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
    expect(session.nativeSessionId).toBeTruthy();
    conversation = session.nativeSessionId;
    await session.close();
  }, 300_000);

  it('a fresh daemon process lists it (harness/sessions) and replays it (harness/history) with the machinery classified', async () => {
    const nativeSessionId = made();
    // A fresh daemon process knows nothing of it but what the harness keeps on disk.
    const { client: fresh } = await rig.fresh();
    expect(await fresh.listSessions()).toEqual([]);
    const listed = await fresh.harnessSessions(knobs.id, { cwd: rig.workdir });
    const summary = listed.find((candidate) => candidate.nativeSessionId === nativeSessionId);
    expect(knobs.titles).toContain(summary?.title);
    const history = await fresh.history(knobs.id, nativeSessionId, { cwd: rig.workdir });
    expect(history.every((item) => item.kind !== 'user_message' || item.replay === true)).toBe(true);
    expect(texts(history)).toEqual(knobs.history);
    // The interrupted turn reads as interrupted: its partial answer is not completed (Codex: from the
    // turn's status), or the harness's own interrupt marker follows it (Claude Code's transcript).
    const partial = history.findIndex((item) => item.kind === 'agent_message' && item.text === 'One, two');
    const marked = history
      .slice(partial + 1)
      .some((item) => item.kind === 'user_message' && item.origin === 'notification');
    expect(history[partial]?.status !== 'completed' || marked, 'the interrupted turn kept as such').toBe(true);
  }, 120_000);

  it('the fresh daemon process adopts it (session/create with spec.resume) and continues it', async () => {
    const nativeSessionId = made();
    const { client: fresh } = await rig.fresh();
    const adopted = await fresh.createSession(knobs.id, { cwd: rig.workdir, resume: { nativeSessionId } });
    const adoptedEvents = new EventReader(adopted.events);
    await turn(rig, adopted, adoptedEvents, PROMPTS.recall, 'Pelican and heron.');
    expect(adopted.nativeSessionId).toBe(nativeSessionId);
    expect((await fresh.listSessions()).map((entry) => entry.nativeSessionId)).toEqual([nativeSessionId]);
    // The model sees the earlier exchange in the continued turn.
    const body = requestBody(rig, PROMPTS.recall);
    for (const text of [PROMPTS.pelican, ANSWERS.pelican, PROMPTS.heron, ANSWERS.heron, PROMPTS.stalled]) {
      expect(JSON.stringify(body)).toContain(JSON.stringify(text).slice(1, -1));
    }
    // Every user-role text the model got is either one the user typed or machinery the registry
    // names (the same registry that classifies history and live user messages).
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
});
