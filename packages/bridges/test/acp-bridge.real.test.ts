// Real tier, hermetic: Reins' generic ACP adapter drives `reins bridge acp -H codex`, which drives the
// REAL pinned Codex CLI on the scripted model server. The conformance suite runs through the bridge
// unchanged (a custom target builds the `acp` harness around the bridge command, with the launch
// environment of Codex's hermetic home), so every behaviour crosses two protocols and back.
// Run: node packages/testkit/bin/hermetic.mjs -- npx vitest run --project real packages/bridges/test/acp-bridge.real.test.ts
import { createHarness } from '@reins/harnesses';
import {
  assertHermetic,
  BEHAVIOURS,
  type ConformanceTarget,
  harnessBinary,
  harnessLaunch,
  makeTempHome,
  runConformance,
} from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { REINS } from './support/processes.js';

const ALTERNATE_MODEL = 'fake-model-2';

const codexBehindBridge: ConformanceTarget = {
  id: 'acp',
  async setup(server) {
    const tempHome = await makeTempHome('reins-bridge-codex-');
    const binary = harnessBinary('codex');
    const launch = await harnessLaunch('codex', {
      modelServerUrl: server.url,
      tempHome,
      binary,
      extraModels: [ALTERNATE_MODEL],
    });
    const harness = await createHarness('acp', {
      command: process.execPath,
      args: [REINS, 'bridge', 'acp', '-H', 'codex', '--binary', binary.command],
      // The bridge gets Codex's hermetic environment and hands it on (harness baseEnv = its own env).
      baseEnv: launch.env,
      requestTimeoutMs: 60_000,
    });
    return {
      harness,
      models: { primary: launch.home.models[0] ?? 'fake-model', alternate: ALTERNATE_MODEL },
      dispose: () => tempHome.cleanup(),
    };
  },
  notApplicable: {
    // Reins confines a generic ACP agent to its cwd, its declared state folders and the temp folder; the
    // bridge as that agent runs Codex, whose home it cannot write then ("Read-only file system"). Through
    // the bridge the posture belongs to the harness behind it, which ACP has no way to ask for.
    'workspace posture blocks a write outside the cwd and allows one inside':
      "the generic ACP agent's confinement holds the bridge and Codex's own home with it; ACP has no sandbox request for the harness behind a bridge",
  },
};

describe('conformance through reins bridge acp -H codex (real Codex)', () => {
  for (const behaviour of BEHAVIOURS) {
    it(behaviour.name, async (context) => {
      await assertHermetic();
      const [result] = await runConformance(codexBehindBridge, { only: [behaviour.name] });
      console.info(`bridge(codex) / ${behaviour.name}: ${result?.status}${result?.reason ? `: ${result.reason}` : ''}`);
      if (result?.status === 'skipped') context.skip(result.reason);
      // A limitation of the bridge that Reins reports honestly is conformant; it shows in the log.
      if (result?.status === 'limited') return;
      expect(result?.reason ?? '', behaviour.name).toBe('');
      expect(result?.status).toBe('passed');
    }, 300_000);
  }
});
