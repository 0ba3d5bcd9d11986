// Real Codex (pinned), hermetic: session continuity (resume in a new process) and settings between turns.
import { ReinsError } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

describe('codex real: session', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('resumes in a new process and continues the same conversation', async () => {
    rig = await codexRig('resume');
    rig.server.enqueue(reply().text('I will remember PINEAPPLE.'));
    const first = await rig.open();
    const one = await first.session.send('Remember the word PINEAPPLE.', { clientMessageId: 'bubble-pineapple' });
    expect((await first.recorder.terminalOf(one)).outcome).toEqual({ status: 'completed' });
    const nativeSessionId = first.session.nativeSessionId as string;
    expect(nativeSessionId).toBeTruthy();
    await first.recorder.close();

    rig.server.enqueue(reply().text('The word was PINEAPPLE.'));
    const second = await rig.open({ resume: { nativeSessionId } });
    expect(second.session.nativeSessionId).toBe(nativeSessionId);
    const two = await second.session.send('What was the word?');
    expect((await second.recorder.terminalOf(two)).outcome).toEqual({ status: 'completed' });
    // The model server sees the earlier exchange in the resumed process's request.
    const [, resumed] = await rig.server.waitForRequests(2);
    const body = JSON.stringify(resumed?.body);
    expect(body).toContain('Remember the word PINEAPPLE.');
    expect(body).toContain('I will remember PINEAPPLE.');
    expect(body).toContain('What was the word?');
    const updated = second.recorder.ofType('session.updated').find((event) => event.nativeSessionId);
    expect(updated?.nativeSessionId).toBe(nativeSessionId);

    const history = await rig.harness.history?.(nativeSessionId, { cwd: rig.workdir });
    const texts = history?.flatMap((item) =>
      item.kind === 'user_message' || item.kind === 'agent_message' ? [item.text] : [],
    );
    expect(texts).toEqual([
      'Remember the word PINEAPPLE.',
      'I will remember PINEAPPLE.',
      'What was the word?',
      'The word was PINEAPPLE.',
    ]);
    // The clientUserMessageId Reins sent on turn/start comes back from Codex's own history as clientId.
    const users = history?.flatMap((item) => (item.kind === 'user_message' ? [item] : []));
    expect(users?.map((item) => item.clientMessageId)).toEqual(['bubble-pineapple', undefined]);
    const live = first.recorder
      .turnEvents(one.turnId)
      .flatMap((event) => (event.type === 'item.completed' && event.item.kind === 'user_message' ? [event.item] : []));
    expect(live).toMatchObject([{ text: 'Remember the word PINEAPPLE.', clientMessageId: 'bubble-pineapple' }]);
    const listed = await rig.harness.listSessions?.({ cwd: rig.workdir });
    expect(listed?.map((summary) => summary.nativeSessionId)).toContain(nativeSessionId);
    await second.recorder.close();
  });

  it('fails a resume of an unknown session with resume_failed, never a fresh thread', async () => {
    rig = await codexRig('resume-unknown');
    const attempt = rig.open({ resume: { nativeSessionId: '01a22a81-0000-7000-8000-000000000000' } });
    const error = await attempt.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(ReinsError.isInstance(error)).toBe(true);
    expect((error as ReinsError).code).toBe('resume_failed');
    expect((error as ReinsError).message).toMatch(/no rollout found/);
    expect(rig.server.requests).toHaveLength(0);
  });

  it('switches the model between turns: the next request uses the new model', async () => {
    rig = await codexRig('model-switch', { extraModels: ['fake-model-2'] });
    rig.server.enqueue(reply().text('From the first model.'), reply().text('From the second model.'));
    const { session, recorder } = await rig.open();
    const one = await session.send('First turn.');
    expect((await recorder.terminalOf(one)).outcome).toEqual({ status: 'completed' });
    expect(await session.setModel('fake-model-2')).toEqual({ applied: 'next_turn' });
    expect(await session.setEffort('high')).toEqual({ applied: 'next_turn' });
    const two = await session.send('Second turn.');
    expect((await recorder.terminalOf(two)).outcome).toEqual({ status: 'completed' });

    const [first, second] = await rig.server.waitForRequests(2);
    expect(first?.model).toBe('fake-model');
    expect(second?.model).toBe('fake-model-2');
    expect(JSON.stringify((second?.body as { reasoning?: unknown } | undefined)?.reasoning)).toContain('high');
    const switched = recorder.turnEvents(two.turnId).find((event) => event.type === 'session.updated' && event.model);
    expect(switched?.type === 'session.updated' && switched.model).toBe('fake-model-2');
    await recorder.close();
  });
});
