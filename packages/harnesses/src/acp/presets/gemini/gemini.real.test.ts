// Gemini CLI 0.61.0 (pinned in harness-clis) through the Reins ACP adapter, against the scripted model server
// inside the loopback-only namespace: what only Gemini does (the scenarios every agent shares, with Gemini's
// quirks, are presets/presets.real.test.ts).
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
  rig = await acpRig('gemini', server, { scenario, extraModels: ['gemini-2.5-pro'] });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

describe('gemini 0.61.0', () => {
  // 0.61.0 advertises loadSession, but a new process mostly answers session/load of a session it
  // wrote itself with -32603 "No previous sessions found for this project." (its chats sit under the
  // project's short name, tmp/<basename>/chats, while load looks elsewhere); in a loaded run it once
  // loaded it. Either way Reins reports what happened: resume_failed with the agent's reason, or the
  // same conversation resumed; never a fresh start.
  it('resume in a new process: resume_failed with the agent reason, or the same conversation (never a fresh one)', async () => {
    server.enqueue(reply().text('First answer.'));
    const first = await rig.open();
    await first.recorder.terminalOf(await first.session.send('Remember the word pineapple.'));
    const nativeSessionId = first.session.nativeSessionId as string;
    await first.recorder.close();
    const resumed = await rig.open({ resume: { nativeSessionId } }).then(
      (opened) => opened,
      (error: unknown) => error,
    );
    if (resumed instanceof Error) {
      expect(resumed).toMatchObject({
        code: 'resume_failed',
        data: { nativeSessionId, rpcData: { details: 'No previous sessions found for this project.' } },
      });
      return;
    }
    expect((resumed as { session: { nativeSessionId?: string } }).session.nativeSessionId).toBe(nativeSessionId);
  });
});
