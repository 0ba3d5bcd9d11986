// The conformance suite against pinned real CLIs, hermetically, one describe per harness pin (a "lane").
// Each behaviour is its own test, so a failure names the harness, the pin, the behaviour and the reason.
// Claude Code, Codex and the moved ACP agents run it on their previous pin as well (harness-clis keeps
// both installed): the core of the session model there (PREVIOUS_PIN_BEHAVIOURS) by default, every
// behaviour with REINS_CONFORMANCE_PREVIOUS=full (before moving a pin, and in the canary's spirit). The
// lanes are spread over a few test files (conformance-*.real.test.ts) only so that the real tier's
// workers can run them side by side.
import { describe, it } from 'vitest';
import { SCENARIO_BEHAVIOURS, TABLE_PINS } from '../../../harnesses/test/support/acp-scenarios.js';
import { assertHermetic, type HarnessPin, harnessBinary, hasPreviousPin } from '../../src/hermetic/index.js';
import {
  BEHAVIOURS,
  type ConformanceTarget,
  conformanceTarget,
  conformanceTargetIds,
  runConformance,
} from '../../src/index.js';

/** Which file runs which harnesses: `rest` takes every target no other group names, so none is ever left out. */
export const LANE_GROUPS = {
  acp: ['gemini', 'qwen-code', 'copilot', 'opencode', 'claude-agent-acp', 'codex-acp'],
  openclaw: ['openclaw'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Groups whose behaviours run side by side within their file: an OpenClaw gateway spends most of its 15-40 s
 * start waiting (about a third of one core, measured), so three starts overlap well. Each behaviour has its
 * own home, model server and ports. ALONE_BEHAVIOURS still run one at a time: the orphan check counts every
 * child of this test process, so a neighbour's gateway would look like its orphan.
 */
const CONCURRENT_GROUPS: ReadonlySet<string> = new Set(['openclaw']);
const ALONE_BEHAVIOURS = new Set(['no orphan process after close']);

function groupIds(group: keyof typeof LANE_GROUPS | 'rest'): string[] {
  const all = conformanceTargetIds() as string[];
  if (group !== 'rest') return all.filter((id) => (LANE_GROUPS[group] as readonly string[]).includes(id));
  const named = new Set<string>(Object.values(LANE_GROUPS).flat());
  return all.filter((id) => !named.has(id));
}

// REINS_CONFORMANCE_HARNESSES=codex,pi,... narrows the lanes for local work (`codex@previous` names only
// the previous pin, `codex@current` only the current). Every pinned CLI with a target runs by default (in CI too).
const wanted = (process.env.REINS_CONFORMANCE_HARNESSES ?? 'all').split(',').filter(Boolean);
const wants = (id: string, pin: HarnessPin) =>
  wanted.includes('all') || wanted.includes(id) || wanted.includes(`${id}@${pin}`);

/**
 * What a previous pin runs by default: a turn, a tool call, an interrupt and a resume, the behaviours the
 * adapters branch on by version. The rest ran on that version when it was the current pin.
 */
export const PREVIOUS_PIN_BEHAVIOURS = ['text turn', 'tool call lifecycle', 'interrupt', 'resume in a new process'];
const previousInFull = process.env.REINS_CONFORMANCE_PREVIOUS === 'full';

/**
 * Behaviours another real test proves on the same agent and pin, with stricter checks: the ACP presets'
 * table (harnesses/src/acp/presets/presets.real.test.ts) runs SCENARIO_BEHAVIOURS on TABLE_PINS. Declared
 * as skipped with the place that runs them, so the lane still names every behaviour.
 */
function provenElsewhere(id: string, pin: HarnessPin, behaviour: string): string | undefined {
  const tablePin = (TABLE_PINS as Record<string, HarnessPin | undefined>)[id];
  if (tablePin !== pin || !(SCENARIO_BEHAVIOURS as readonly string[]).includes(behaviour)) return undefined;
  return `run by the ACP presets' table on ${id}'s ${pin} pin (presets.real.test.ts)`;
}

/** Declares one describe per wanted lane of `group`, each with one test per behaviour. */
export function conformanceLanes(group: keyof typeof LANE_GROUPS | 'rest'): void {
  const runs = groupIds(group).flatMap((id) =>
    (['current', 'previous'] as const)
      .filter((pin) => (pin === 'current' || hasPreviousPin(id)) && wants(id, pin))
      .map((pin) => ({ id, pin })),
  );
  if (runs.length === 0) it.skip(`no ${group} lane selected by REINS_CONFORMANCE_HARNESSES`, () => {});
  for (const { id, pin } of runs) {
    // One pinned binary and one target per lane, made on first use (inside a test, where a missing CLI
    // fails that test): the suite asks the target's capabilities once for all the lane's behaviours.
    let pinned: ReturnType<typeof harnessBinary> | undefined;
    let target: ConformanceTarget | undefined;
    const binary = () => (pinned ??= harnessBinary(id as Parameters<typeof harnessBinary>[0], undefined, pin));
    const laneTarget = () =>
      (target ??= conformanceTarget(id as Parameters<typeof conformanceTarget>[0], { binary: binary() }));
    describe(`conformance: ${id}${pin === 'previous' ? ' (previous pin)' : ''}`, () => {
      const behaviours =
        pin === 'previous' && !previousInFull
          ? BEHAVIOURS.filter((behaviour) => PREVIOUS_PIN_BEHAVIOURS.includes(behaviour.name))
          : BEHAVIOURS;
      for (const behaviour of behaviours) {
        const elsewhere = provenElsewhere(id, pin, behaviour.name);
        if (elsewhere) {
          it.skip(`${behaviour.name} (${elsewhere})`, () => {});
          continue;
        }
        const side = CONCURRENT_GROUPS.has(group) && !ALONE_BEHAVIOURS.has(behaviour.name);
        (side ? it.concurrent : it)(
          behaviour.name,
          async (context) => {
            await assertHermetic();
            const [result] = await runConformance(laneTarget(), { only: [behaviour.name] });
            const label = `${id} ${binary().version} / ${behaviour.name}`;
            if (result?.status === 'skipped') context.skip(result.reason);
            // A known harness limitation that Reins reported honestly is conformant; it shows in the log.
            if (result?.status === 'limited') {
              console.info(`${label}: limited: ${result.reason}`);
              return;
            }
            context.expect(result?.reason ?? '', label).toBe('');
            context.expect(result?.status).toBe('passed');
          },
          300_000,
        );
      }
    });
  }
}
