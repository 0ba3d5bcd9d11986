// Real Codex (pinned), hermetic: the Harness object outside a session (discovery, health through
// account/read, the model catalog, capabilities).
import { harnessBinary } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';
import { createCodexHarness } from './adapter.js';

describe('codex real: harness', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('discovers the pinned binary, is ready, and lists the configured models', async () => {
    rig = await codexRig('harness', { extraModels: ['fake-model-2'] });
    const discovery = await rig.harness.discover();
    expect(discovery.found).toBe(true);
    if (discovery.found) {
      expect(discovery.binary.version).toBe(rig.version);
      expect(discovery.binary.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    const health = await rig.harness.health();
    expect(health.status).toBe('ready');
    const models = await rig.harness.models?.();
    expect(models?.map((model) => model.id)).toEqual(['fake-model', 'fake-model-2']);
    expect(models?.[0]?.efforts).toEqual(expect.arrayContaining(['low', 'medium', 'high']));
    const capabilities = await rig.harness.capabilities();
    expect(capabilities.steer.implemented).toMatchObject({ state: 'yes', how: 'native' });
    expect(capabilities.cost.implemented.state).toBe('no');
    expect(capabilities.resume.observed.state).toBe('unknown');
    // No model request was needed for any of this.
    expect(rig.server.requests.filter((request) => request.scripted)).toHaveLength(0);
  });

  it('reports not_installed for a missing binary and unhealthy for a config Codex rejects', async () => {
    rig = await codexRig('harness-broken');
    const missing = createCodexHarness({ binaryPath: '/nonexistent/codex', baseEnv: rig.home.env });
    expect((await missing.discover()).found).toBe(false);
    expect((await missing.health()).status).toBe('not_installed');

    // --strict-config turns an unknown config key into a start failure instead of a silent fallback.
    const broken = createCodexHarness({
      binaryPath: harnessBinary('codex').command,
      baseEnv: { ...rig.home.env },
      extraArgs: ['-c', 'definitely_not_a_codex_key=1'],
      requestTimeoutMs: 10_000,
    });
    const health = await broken.health();
    expect(health.status).toBe('unhealthy');
    expect(health.message).toBeTruthy();
  });
});
