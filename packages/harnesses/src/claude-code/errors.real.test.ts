// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332) with CLAUDE_CODE_MAX_RETRIES=0: provider errors become failed turns with
// mapped codes (the CLI reports them as a synthetic assistant message plus an error result).
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

async function failedTurn(status: number, body: unknown, headers: Record<string, string> = {}) {
  rig = await claudeRig(`provider-${status}`);
  rig.server.when(() => true, reply().httpError(status, body, headers), { persistent: true });
  const { session, recorder } = await rig.open();
  const turn = await session.send('hello');
  const done = await recorder.terminalOf(turn, 0, 60_000);
  await recorder.close();
  expect(done.outcome.status).toBe('failed');
  if (done.outcome.status !== 'failed') throw new Error('unreachable');
  // Agent text must not pretend the error was the model's answer.
  expect(recorder.ofType('item.completed').some((event) => event.item.kind === 'agent_message')).toBe(false);
  return done.outcome.error;
}

describe('claude-code real: provider errors', () => {
  test('HTTP 500 -> provider_error server_error', async () => {
    const error = await failedTurn(500, {
      type: 'error',
      error: { type: 'api_error', message: 'Internal server error (fake)' },
    });
    expect(error.code).toBe('provider_error');
    expect(error.data).toMatchObject({ kind: 'server_error' });
    expect(error.message).toContain('500');
  });

  test('HTTP 401 -> auth_required', async () => {
    const error = await failedTurn(401, {
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
    expect(error.code).toBe('auth_required');
  });

  test('HTTP 429 -> provider_error rate_limited', async () => {
    const error = await failedTurn(
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited (fake)' } },
      { 'retry-after': '0' },
    );
    expect(error.code).toBe('provider_error');
    expect(error.data).toMatchObject({ kind: 'rate_limited' });
  });
});
