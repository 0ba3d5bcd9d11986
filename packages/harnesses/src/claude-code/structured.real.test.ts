// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332): structured output through the SDK's outputFormat (the CLI offers a
// StructuredOutput tool whose input_schema is the schema); core validates the result against the
// ORIGINAL schema. The CLI's own retries ending in error_max_structured_output_retries -> structured_output_invalid.
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

const schema = {
  type: 'object',
  properties: { answer: { type: 'string' }, n: { type: 'integer' } },
  required: ['answer', 'n'],
  additionalProperties: false,
};

describe('claude-code real: structured output', () => {
  test('structured output valid', async () => {
    rig = await claudeRig('structured-valid');
    rig.server.enqueue(reply().json({ answer: 'forty-two', n: 42 }));
    rig.server.enqueue(reply().text('Done.'));
    const { session, recorder } = await rig.open({ outputSchema: schema });
    const turn = await session.send('Answer in JSON');
    const done = await recorder.terminalOf(turn);
    expect(done.outcome).toEqual({ status: 'completed' });
    expect(done.structuredOutput).toEqual({ answer: 'forty-two', n: 42 });
    const offered = rig.server.requests.find((entry) => entry.path === '/v1/messages');
    const tools =
      (offered?.body as { tools?: Array<{ name: string; input_schema?: unknown }> } | undefined)?.tools ?? [];
    expect(tools.find((tool) => tool.name === 'StructuredOutput')?.input_schema).toMatchObject({
      required: ['answer', 'n'],
    });
    await recorder.close();
  });

  test('structured output invalid: the CLI gives up, the turn fails with structured_output_invalid', async () => {
    rig = await claudeRig('structured-invalid');
    // Every attempt answers with the wrong shape; the CLI retries, then gives up.
    rig.server.when(() => true, reply().json({ answer: 7 }), { persistent: true });
    const { session, recorder } = await rig.open({ outputSchema: schema });
    const turn = await session.send('Answer in JSON');
    const done = await recorder.terminalOf(turn, 0, 60_000);
    expect(done.outcome.status).toBe('failed');
    expect(done.outcome.status === 'failed' && done.outcome.error.code).toBe('structured_output_invalid');
    expect(done.structuredOutput).toBeUndefined();
    await recorder.close();
  });

  test('a per-turn schema different from the session one restarts into the same conversation', async () => {
    rig = await claudeRig('structured-per-turn');
    rig.server.enqueue(reply().text('The number is 42.'));
    const { session, recorder } = await rig.open();
    const plain = await session.send('Think of a number');
    expect((await recorder.terminalOf(plain)).outcome).toEqual({ status: 'completed' });
    const before = session.nativeSessionId;
    rig.server.enqueue(reply().json({ answer: 'forty-two', n: 42 }));
    rig.server.enqueue(reply().text('Done.'));
    const shaped = await session.send('Now as JSON', { outputSchema: schema });
    const done = await recorder.terminalOf(shaped);
    expect(done.outcome).toEqual({ status: 'completed' });
    expect(done.structuredOutput).toEqual({ answer: 'forty-two', n: 42 });
    expect(session.nativeSessionId).toBe(before);
    const shapedRequest = rig.server.requests.find((entry) => entry.userText.includes('Now as JSON'));
    expect(JSON.stringify(shapedRequest?.body)).toContain('The number is 42.');
    await recorder.close();
  });
});
