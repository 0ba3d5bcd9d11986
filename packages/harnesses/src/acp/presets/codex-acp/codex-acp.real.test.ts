// codex-acp (the current pin, 2.6.0; written on 0.16.0, now the previous pin) through the Reins ACP adapter, against the
// scripted model server inside the loopback-only namespace: what only codex-acp does (the scenarios every agent
// shares are presets/presets.real.test.ts). Its home (testing/home.ts) carries its own model catalog: the
// older Codex core inside 0.16.0 rejects a current Codex's catalog.
import { assertHermetic, type ModelServer, pinnedVersion, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig, of } from '../../../../test/support/acp-real.js';
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
  rig = await acpRig('codex-acp', server, { scenario, extraModels: ['fake-model-2'] });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

describe(`codex-acp ${pinnedVersion('codex-acp')}`, () => {
  // 0.16.0 (the previous pin, a native binary) refuses --version: discovery, health and the session all
  // read initialize's agentInfo.version. (2.6.0 is a Node script run with binaryArgs: not probed here.)
  it('reports the version initialize names', async () => {
    const pinned = pinnedVersion('codex-acp', 'previous');
    const previous = await acpRig('codex-acp', server, { scenario: 'version', pin: 'previous' });
    try {
      const harness = previous.harness();
      const discovery = await harness.discover();
      expect(discovery.found && discovery.binary.version).toBe(pinned);
      expect(await harness.health()).toMatchObject({ status: 'ready', binary: { version: pinned } });
      const { recorder } = await previous.open();
      const started = await recorder.collect((event) => event.type === 'session.status', 'the first session.status');
      expect(of(started, 'session.started')[0]?.harnessVersion).toBe(pinned);
      await recorder.close();
    } finally {
      await previous.cleanup();
    }
  });
});
