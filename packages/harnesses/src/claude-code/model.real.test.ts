// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332): live model switch (the next request names the new model), and a model
// the provider does not know (accepted by set_model, 404 on the next turn) -> unsupported_model.
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: models', () => {
  test('model switch: applied live, the server sees the new model', async () => {
    rig = await claudeRig('model-switch');
    rig.server.enqueue(reply().text('On the first model.'));
    const { session, recorder } = await rig.open();
    const first = await session.send('hi');
    await recorder.terminalOf(first);
    expect(rig.server.requests.filter((entry) => entry.path === '/v1/messages').at(-1)?.model).toBe('fake-model');

    const change = await session.setModel('claude-sonnet-4-5-20250929');
    expect(change).toEqual({ applied: 'live' });
    rig.server.when(
      (request) => request.model === 'claude-sonnet-4-5-20250929' && request.userText.includes('again'),
      reply().text('On the second model.'),
    );
    const second = await session.send('hi again');
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    const turnRequest = rig.server.requests.filter((entry) => entry.userText.includes('hi again')).at(-1);
    expect(turnRequest?.model).toBe('claude-sonnet-4-5-20250929');
    expect(recorder.ofType('session.updated').some((event) => event.model === 'claude-sonnet-4-5-20250929')).toBe(true);
    await recorder.close();
  });

  test('unsupported model: set_model accepts it, the next turn fails with unsupported_model', async () => {
    rig = await claudeRig('model-unsupported');
    const bogus = 'claude-nonexistent-9';
    rig.server.when(
      (request) => request.model === bogus,
      reply().httpError(404, { type: 'error', error: { type: 'not_found_error', message: `model: ${bogus}` } }),
      { persistent: true },
    );
    const { session, recorder } = await rig.open();
    expect(await session.setModel(bogus)).toEqual({ applied: 'live' });
    const turn = await session.send('hello');
    const done = await recorder.terminalOf(turn);
    expect(done.outcome.status).toBe('failed');
    if (done.outcome.status !== 'failed') return;
    expect(done.outcome.error.code).toBe('unsupported_model');
    expect(done.outcome.error.message).toContain('unsupported model');
    expect(done.outcome.error.message).toContain(bogus);
    await recorder.close();
  });
});
