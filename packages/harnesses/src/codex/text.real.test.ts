// Real Codex (pinned), hermetic: a plain text turn streams deltas, reports usage and completes.
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

describe('codex real: text turn', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('streams text deltas, reports usage without cost, and completes the turn', async () => {
    rig = await codexRig('text-turn');
    rig.server.enqueue(reply().text('Hello from the scripted model.').usage({ input: 120, output: 9 }));
    const { session, recorder } = await rig.open();
    const sent = await session.send('Say hello.');
    expect(sent.delivery).toBe('started');
    const terminal = await recorder.terminalOf(sent);

    expect(terminal.outcome).toEqual({ status: 'completed' });
    const started = recorder.ofType('session.started')[0];
    expect(started?.harnessVersion).toBe(rig.version);
    const updated = recorder.ofType('session.updated').find((event) => event.nativeSessionId);
    expect(updated?.nativeSessionId).toBe(session.nativeSessionId);

    const turn = recorder.turnEvents(sent.turnId);
    const deltas = turn.flatMap((event) => (event.type === 'item.delta' && event.kind === 'text' ? [event.text] : []));
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.join('')).toBe('Hello from the scripted model.');
    const messages = turn.flatMap((event) =>
      event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
    );
    expect(messages).toEqual(['Hello from the scripted model.']);
    const users = turn.flatMap((event) =>
      event.type === 'item.completed' && event.item.kind === 'user_message' ? [event.item.text] : [],
    );
    expect(users).toEqual(['Say hello.']);

    expect(terminal.usage?.turn).toMatchObject({ input: 120, output: 9, total: 129 });
    expect(terminal.usage?.total).toMatchObject({ input: 120, output: 9 });
    expect(terminal.usage?.context?.window).toBeGreaterThan(0);
    expect(terminal.usage?.costUsd).toBeUndefined();
    expect(recorder.ofType('session.status').map((event) => event.status)).toEqual(
      expect.arrayContaining(['running', 'idle']),
    );
    const request = rig.server.requests.find((entry) => entry.scripted);
    expect(request?.userText).toContain('Say hello.');

    await recorder.close();
    expect(recorder.events.at(-1)?.type).toBe('session.closed');
  });

  it('streams reasoning as reasoning deltas and a reasoning item', async () => {
    rig = await codexRig('reasoning');
    rig.server.enqueue(reply().reasoning('Weighing the options.').text('Decided.'));
    const { session, recorder } = await rig.open();
    const sent = await session.send('Think, then answer.');
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    const turn = recorder.turnEvents(sent.turnId);
    const reasoningDeltas = turn.flatMap((event) =>
      event.type === 'item.delta' && event.kind === 'reasoning' ? [event.text] : [],
    );
    expect(reasoningDeltas.join('')).toContain('Weighing the options.');
    const reasoning = turn.flatMap((event) =>
      event.type === 'item.completed' && event.item.kind === 'reasoning' ? [event.item] : [],
    );
    expect(reasoning).toHaveLength(1);
    expect(`${reasoning[0]?.text ?? ''}${reasoning[0]?.summary ?? ''}`).toContain('Weighing the options.');
    await recorder.close();
  });
});
