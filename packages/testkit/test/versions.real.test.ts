// Every pinned CLI (and the previous pins kept beside Claude Code and Codex), run with its home builder's
// environment inside the namespace, reports the version that harness-clis/package.json pins (so a drifted
// install or a wrong binary path fails loudly), in the words its pin (the harness's testing/pin.ts) says it prints.
import { HARNESS_PINS, type HarnessPinSpec } from '@reins/harnesses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessLaunch } from '../src/harness-homes/index.js';
import { assertHermetic } from '../src/hermetic/assert-hermetic.js';
import {
  HARNESS_IDS,
  type HarnessId,
  type HarnessPin,
  harnessBinary,
  PREVIOUS_PIN_IDS,
  pinnedVersion,
} from '../src/hermetic/binaries.js';
import { makeTempHome, type TempHome } from '../src/hermetic/temp-home.js';
import { runAcpInitialize } from './support/acp.js';
import { testTimeout } from './support/deadlines.js';
import { HarnessProcess } from './support/harness-process.js';

/** Each harness's pin (its testing part): what its --version prints, or the name its ACP initialize gives. */
const pinSpecs = new Map<HarnessId, HarnessPinSpec>(HARNESS_PINS.map((spec) => [spec.id, spec]));

let tempHome: TempHome;
beforeAll(async () => {
  await assertHermetic();
  tempHome = await makeTempHome('reins-versions-');
});
afterAll(async () => {
  await tempHome?.cleanup();
});

const pins: [HarnessId, HarnessPin][] = [
  ...HARNESS_IDS.map((id): [HarnessId, HarnessPin] => [id, 'current']),
  ...PREVIOUS_PIN_IDS.map((id): [HarnessId, HarnessPin] => [id, 'previous']),
];

describe.each(pins)('%s (%s pin)', (id, pin) => {
  it(
    'reports the pinned version',
    async () => {
      const binary = harnessBinary(id, undefined, pin);
      const pinned = pinnedVersion(id, pin);
      expect(binary.version).toBe(pinned);
      // No model server is needed for a version probe: point at a port nothing listens on.
      const launch = await harnessLaunch(id, { modelServerUrl: 'http://127.0.0.1:9', tempHome, binary });

      const spec = pinSpecs.get(id);
      // ACP agents without a --version (claude-agent-acp 0.23.1 ignores arguments, codex-acp 0.16.0 refuses it).
      if (spec?.initializeName) {
        const agentName = spec.initializeName[pin];
        expect(agentName, `${id}'s pin names no initialize name for its ${pin} pin`).toBeDefined();
        const agent = new HarnessProcess(launch, tempHome.dir);
        try {
          const initialize = await runAcpInitialize(agent, 20_000);
          expect(initialize.agentInfo).toMatchObject({ name: agentName, version: pinned });
        } finally {
          await agent.close();
        }
        return;
      }

      // The version flag replaces the protocol-mode arguments; the wrapper (OpenClaw's private /tmp) stays.
      const line = [...(launch.home.wrapper ?? []), binary.command, ...binary.args, '--version'];
      const cli = new HarnessProcess(
        { ...launch, command: line[0] ?? binary.command, args: line.slice(1) },
        tempHome.dir,
      );
      cli.child.stdin.end();
      const exit = await cli.waitFor('exit after --version', () => cli.exit, 30_000);
      expect(exit, cli.describe()).toEqual({ code: 0, signal: null });
      // Pi 0.73.1 prints its version on stderr; the others on stdout.
      const versionOutput = spec?.versionOutput;
      if (!versionOutput) throw new Error(`${id}'s pin says neither what --version prints nor its initialize name.`);
      expect(`${cli.lines.join('\n')}\n${cli.stderr}`).toContain(versionOutput(pinned));
    },
    testTimeout(),
  );
});
