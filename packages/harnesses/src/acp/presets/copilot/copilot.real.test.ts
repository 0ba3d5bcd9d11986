// GitHub Copilot CLI 1.0.102 (offline BYOK) (pinned in harness-clis) through the Reins ACP adapter, against the
// scripted model server inside the loopback-only namespace: what only Copilot does (the scenarios every agent
// shares, with Copilot's quirks, are presets/presets.real.test.ts).
import { assertHermetic, type ModelServer, reply, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig } from '../../../../test/support/acp-real.js';
import { liveProcessCount } from '../../../runtime/index.js';

let server: ModelServer;
let rig: AcpRig;

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(async (context) => {
  server.reset();
  const scenario = context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  rig = await acpRig('copilot', server, { scenario, extraModels: ['fake-model-2'] });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

describe('copilot 1.0.102', () => {
  // Under sustained 5xx 1.0.102 sends "Info: ... Retrying..." chunks (five, over ~16 s) and then an
  // "Error: ... Last error: 500 ..." chunk, all with stopReason end_turn: retries are notices, the
  // turn fails, and none of it is passed off as the model's answer.
  it('provider error under sustained 5xx: retry notices, a failed turn, no status text as answer', async () => {
    rig.server.when(() => true, reply().httpError(500), { persistent: true });
    const { session, recorder } = await rig.open();
    const completed = await recorder.terminalOf(await session.send('This will keep failing.'), 0, 90_000);
    expect(completed.outcome).toMatchObject({
      status: 'failed',
      error: { code: 'provider_error', retryable: true, data: { kind: 'server_error', status: 500 } },
    });
    const retries = recorder.ofType('notice').filter((notice) => notice.kind === 'retry');
    expect(retries.length).toBeGreaterThan(0);
    const answers = recorder
      .ofType('item.completed')
      .filter((event) => event.item.kind === 'agent_message' && /Retrying|Error:/.test(event.item.text));
    expect(answers).toEqual([]);
    await recorder.close();
  });

  // Sign-in (acp/auth.ts): without its BYOK provider 1.0.102 answers session/new with -32000
  // "Authentication required" and lists copilot-login, a `_meta["terminal-auth"]` method naming
  // `copilot login`: Reins hands back that command and never sends it to authenticate.
  it('sign-in: signed out without a provider, login gives the copilot login command, with BYOK signed in', async () => {
    const {
      COPILOT_PROVIDER_TYPE: _type,
      COPILOT_PROVIDER_BASE_URL: _url,
      COPILOT_PROVIDER_API_KEY: _key,
      // Offline mode refuses to start without a provider ("Offline mode requires a local model provider").
      COPILOT_OFFLINE: _offline,
      ...withoutProvider
    } = rig.home.env;
    const auth = rig.harness({ baseEnv: withoutProvider }).auth;
    const status = await auth.status();
    expect(status).toMatchObject({ status: 'signed_out', methods: [{ id: 'copilot-login' }] });
    const ceremony = await auth.login?.({ method: 'copilot-login' });
    if (!ceremony) throw new Error('no ceremony');
    expect(ceremony.instructions).toMatch(/^Run `\S*copilot login` in a terminal/);
    expect(liveProcessCount()).toBe(0);
    await ceremony.cancel();
    expect(await ceremony.completed).toEqual({ ok: false, message: 'The sign-in was cancelled.' });
    await expect(auth.login?.({ method: 'github' })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await rig.harness().auth.status()).toEqual({ status: 'signed_in' });
  });
});
