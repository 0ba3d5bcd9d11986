// OpenCode 1.18.33 (pinned in harness-clis) through the Reins ACP adapter, against the scripted model server
// inside the loopback-only namespace: what only OpenCode does (the scenarios every agent shares are
// presets/presets.real.test.ts).
import { assertHermetic, type ModelServer, startModelServer } from '@reins/testkit';
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
  rig = await acpRig('opencode', server, { scenario, extraModels: ['fake-model-2'] });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

describe('opencode 1.18.33', () => {
  // 1.18.33 lists its OpenCode Zen cloud models even offline; Reins hides them when models fetch is off.
  it('hides the offline cloud models', async () => {
    const { session } = await rig.open();
    const ids = session.availableModels().map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['fake/fake-model', 'fake/fake-model-2']));
    expect(ids.some((id) => id.startsWith('opencode/'))).toBe(false);
    await expect(session.setModel('opencode/big-pickle')).rejects.toMatchObject({ code: 'unsupported_model' });
  });
});
