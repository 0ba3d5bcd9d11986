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
import { writeCodexShim } from './support/processes.js';

const ALTERNATE_MODEL = 'fake-model-2';

const claudeBehindBridge: ConformanceTarget = {
  id: 'codex',
  async setup(server) {
    const tempHome = await makeTempHome('reins-bridge-claude-');
    const binary = harnessBinary('claude-code');
    const launch = await harnessLaunch('claude-code', {
      modelServerUrl: server.url,
      tempHome,
      binary,
      extraModels: [ALTERNATE_MODEL],
    });
    // The Codex adapter runs `<binary> app-server --strict-config`; the launcher hands that to the bridge.
    const launcher = await writeCodexShim(tempHome.dir, binary.command);
    const harness = await createHarness('codex', {
      binaryPath: launcher,
      // The bridge gets Claude Code's hermetic environment and hands it on (harness baseEnv = its own env).
      baseEnv: launch.env,
      requestTimeoutMs: 60_000,
    });
    return {
      harness,
      models: { primary: launch.home.models[0] ?? 'fake-model', alternate: ALTERNATE_MODEL },
      dispose: () => tempHome.cleanup(),
    };
  },
};

describe('conformance through reins bridge codex-app-server -H claude-code (real Claude Code)', () => {
  for (const behaviour of BEHAVIOURS) {
    it(behaviour.name, async (context) => {
      await assertHermetic();
      const [result] = await runConformance(claudeBehindBridge, { only: [behaviour.name] });
      console.info(
        `bridge(claude-code) / ${behaviour.name}: ${result?.status}${result?.reason ? `: ${result.reason}` : ''}`,
      );
      if (result?.status === 'skipped') context.skip(result.reason);
      // A limitation of the bridge that Reins reports honestly is conformant; it shows in the log.
      if (result?.status === 'limited') return;
      expect(result?.reason ?? '', behaviour.name).toBe('');
      expect(result?.status).toBe('passed');
    }, 300_000);
  }
});
