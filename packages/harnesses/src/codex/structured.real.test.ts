// Real Codex (pinned), hermetic: structured output through turn/start outputSchema. Codex 0.169.0 sends
// the schema as text.format json_schema (strict) and does NOT validate the reply, so Reins does.
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

const schema = {
  type: 'object',
  properties: {
    answer: { type: 'string' },
    confidence: { type: 'number' },
  },
  required: ['answer'],
};

describe('codex real: structured output', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('sends the strict schema and returns the validated value with emitted nulls removed', async () => {
    rig = await codexRig('structured-valid');
    rig.server.enqueue(reply().json({ answer: 'forty-two', confidence: null }));
    const { session, recorder } = await rig.open();
    const sent = await session.send('Answer as JSON.', { outputSchema: schema });
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    expect(terminal.structuredOutput).toEqual({ answer: 'forty-two' });

    const [request] = await rig.server.waitForRequests(1);
    const format = (request?.body as { text?: { format?: Record<string, unknown> } } | undefined)?.text?.format;
    expect(format).toMatchObject({ type: 'json_schema', strict: true });
    expect(format?.schema).toMatchObject({
      additionalProperties: false,
      required: ['answer', 'confidence'],
      properties: { confidence: { type: ['number', 'null'] } },
    });
    await recorder.close();
  });

  it('fails the turn with structured_output_invalid when the reply does not match the schema', async () => {
    rig = await codexRig('structured-invalid');
    rig.server.enqueue(reply().text('Sorry, no JSON today.'), reply().json({ answer: 7 }));
    const { session, recorder } = await rig.open({ outputSchema: schema });
    const prose = await session.send('Answer as JSON.');
    const first = await recorder.terminalOf(prose);
    expect(first.outcome.status).toBe('failed');
    if (first.outcome.status === 'failed') expect(first.outcome.error.code).toBe('structured_output_invalid');
    expect(first.structuredOutput).toBeUndefined();

    const wrongType = await session.send('Answer as JSON again.');
    const second = await recorder.terminalOf(wrongType);
    expect(second.outcome.status).toBe('failed');
    if (second.outcome.status === 'failed') {
      expect(second.outcome.error.code).toBe('structured_output_invalid');
      expect(second.outcome.error.message).toMatch(/answer/);
    }
    await recorder.close();
  });
});
