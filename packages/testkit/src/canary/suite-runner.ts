// One pass of the conformance suite over one install of the harness CLIs (harness-clis/ for the pinned
// baseline, the canary's cache for the newest), with every behaviour's passthrough frame types counted.
// Runs inside the loopback-only namespace (bin/canary.mjs --suite, started by the canary under
// bin/hermetic.mjs); a harness that cannot be run (not installed, no platform binary) is reported, not thrown.
import { BEHAVIOURS } from '../conformance/behaviours.js';
import { runConformance } from '../conformance/suite.js';
import { conformanceTarget } from '../conformance/targets.js';
import { assertHermetic } from '../hermetic/assert-hermetic.js';
import { type HarnessId, harnessBinary, harnessPackageName } from '../hermetic/binaries.js';
import { countingTarget, PassthroughCounter } from './passthrough.js';
import type { HarnessRun, SuiteRun } from './report.js';

export interface SuiteOptions {
  /** A folder with harness-clis' node_modules layout. */
  root: string;
  ids: HarnessId[];
  /** Behaviour names; default all. */
  only?: string[];
  /** Progress lines (stderr). */
  log?: (line: string) => void;
}

async function runHarness(id: HarnessId, options: SuiteOptions): Promise<HarnessRun> {
  const packageName = harnessPackageName(id);
  let binary: ReturnType<typeof harnessBinary>;
  try {
    binary = harnessBinary(id, options.root);
  } catch (error) {
    return { id, packageName, error: error instanceof Error ? error.message : String(error), behaviours: [] };
  }
  const counter = new PassthroughCounter();
  const target = countingTarget(conformanceTarget(id, { binary }), counter);
  const run: HarnessRun = { id, packageName, version: binary.version, behaviours: [] };
  for (const behaviour of BEHAVIOURS) {
    if (options.only && !options.only.includes(behaviour.name)) continue;
    const [result] = await runConformance(target, { only: [behaviour.name] });
    const passthrough = counter.take();
    if (!result) continue;
    run.behaviours.push({
      behaviour: result.behaviour,
      status: result.status,
      ...(result.reason ? { reason: result.reason } : {}),
      passthrough,
      durationMs: result.durationMs,
    });
    options.log?.(
      `${id} ${binary.version} / ${result.behaviour}: ${result.status}${result.reason ? ` (${result.reason})` : ''}`,
    );
  }
  return run;
}

export async function runSuite(options: SuiteOptions): Promise<SuiteRun> {
  await assertHermetic();
  // Homes and targets that look harness-clis up themselves (OpenClaw's private /tmp) must see this install.
  process.env.REINS_HARNESS_CLIS = options.root;
  const harnesses: HarnessRun[] = [];
  for (const id of options.ids) harnesses.push(await runHarness(id, options));
  return { root: options.root, harnesses };
}
