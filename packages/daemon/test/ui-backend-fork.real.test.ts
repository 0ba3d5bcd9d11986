// Fork through the daemon on the real pinned CLIs, hermetically: session/fork and spec.resume.fork
// give a new conversation (a new native id) whose first request to the scripted model server holds
// the history up to the fork point, and which diverges after (the original's next request does not
// hold the fork's message, nor the fork's the original's), wherever the daemon's capability matrix
// says the adapter forks; elsewhere session/fork is refused with unsupported_capability and no
// session is made. Codex (thread/fork), Claude Code and claude-agent-acp (session/fork).
import { type CapabilityMatrix, ReinsError } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { assertHermetic } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventReader } from './helpers.js';
import { HARNESS_RIGS, type Rig, rigFor, shown, turn } from './ui-backend-rig.js';

/** The daemon forks where the adapter maps fork and the agent does not say it has none (ACP). */
const forks = (matrix: CapabilityMatrix) =>
  matrix.fork.implemented.state === 'yes' && matrix.fork.advertised.state !== 'no';

describe.each(HARNESS_RIGS)('ui backend real: fork on $id through the daemon', (knobs) => {
  let rig: Rig;
  beforeAll(async () => {
    await assertHermetic();
    rig = await rigFor(knobs);
  }, 120_000);
  afterAll(async () => {
    await rig?.dispose();
    expect(liveProcessCount()).toBe(0);
  }, 60_000);

  it('session/fork and spec.resume.fork: new conversations that share the history up to the fork, then diverge', async (context) => {
    const { client } = rig.first;
    const matrix = await client.capabilities(knobs.id);
    if (!forks(matrix)) context.skip(`the ${knobs.id} adapter has no fork (yet)`);
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
    if (forks(matrix)) context.skip(`the ${knobs.id} adapter has fork`);
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
