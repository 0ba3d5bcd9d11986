// Real Codex (pinned), hermetic: provider failures surface as failed outcomes with the right codes,
// and a crash of the Codex process mid-turn fails the turn with process_exited instead of hanging.
import { execFileSync } from 'node:child_process';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

describe('codex real: errors', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  async function failedTurn(scenario: string, status: number) {
    rig = await codexRig(scenario);
    rig.server.enqueue(reply().httpError(status));
    const { session, recorder } = await rig.open();
    const sent = await session.send('Trigger the provider error.');
    const terminal = await recorder.terminalOf(sent);
    // The session stays usable after a provider failure.
    rig.server.enqueue(reply().text('Recovered.'));
    const next = await session.send('Try again.');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    await recorder.close();
    return { terminal, recorder };
  }

  it('surfaces a provider 500 as provider_error server_error', async () => {
    const { terminal } = await failedTurn('error-500', 500);
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status !== 'failed') return;
    expect(terminal.outcome.error).toMatchObject({
      code: 'provider_error',
      retryable: true,
      data: { kind: 'server_error' },
    });
  });

  it('surfaces a provider 401 as auth_required', async () => {
    const { terminal } = await failedTurn('error-401', 401);
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status !== 'failed') return;
    expect(terminal.outcome.error.code).toBe('auth_required');
  });

  it('surfaces a 404 model_not_found as unsupported_model', async () => {
    const { terminal, recorder } = await failedTurn('error-404-model', 404);
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status !== 'failed') return;
    expect(terminal.outcome.error.code).toBe('unsupported_model');
    expect(terminal.outcome.error.message).toContain('unsupported model');
    expect(terminal.outcome.error.message).toContain('fake-model');
    expect(recorder.ofType('error').some((event) => event.code === 'unsupported_model')).toBe(true);
  });

  it('fails the running turn with process_exited when the Codex process group dies, without hanging', async () => {
    rig = await codexRig('crash');
    rig.server.enqueue(reply().text('Thinking forever').stall());
    const { session, recorder } = await rig.open();
    const sent = await session.send('Start and then crash.');
    const started = await recorder.waitFor((event) => event.type === 'session.started', 'session.started');
    await recorder.waitFor((event) => event.type === 'item.delta' && event.turnId === sent.turnId, 'a text delta');
    const binaryPath = started.type === 'session.started' ? started.binaryPath : undefined;
    expect(binaryPath).toBeTruthy();
    const pid = findChildPid(binaryPath as string);
    process.kill(-pid, 'SIGKILL');
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status === 'failed') expect(terminal.outcome.error.code).toBe('process_exited');
    const closed = await recorder.waitFor((event) => event.type === 'session.closed', 'session.closed');
    expect(closed.type === 'session.closed' && closed.reason).toBe('process_exited');
    await expect(session.send('Anyone there?')).rejects.toMatchObject({ code: 'invalid_input' });
    await recorder.close();
  });
});

/** The pid of the app-server this test started (a child of this process running the pinned binary). */
function findChildPid(binaryPath: string): number {
  const out = execFileSync('ps', ['-o', 'pid=,ppid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  const line = out.split('\n').find((row) => row.includes(binaryPath) && row.includes('app-server'));
  if (!line) throw new Error(`no app-server child of ${process.pid} in:\n${out}`);
  return Number(line.trim().split(/\s+/)[0]);
}
