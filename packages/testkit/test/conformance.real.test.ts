// The conformance suite against every pinned real CLI that has an adapter, hermetically. Each
// behaviour is its own test, so a failure names the harness, the pin, the behaviour and the reason.
// Claude Code and Codex run it on their previous pin as well (harness-clis keeps both installed), so
// each capability's tested range spans two versions.
import { describe, expect, it } from 'vitest';
import { assertHermetic, type HarnessPin, harnessBinary, hasPreviousPin } from '../src/hermetic/index.js';
import { BEHAVIOURS, conformanceTarget, conformanceTargetIds, runConformance } from '../src/index.js';

// Every pinned CLI with a target runs the whole suite (in CI too). REINS_CONFORMANCE_HARNESSES=codex,pi,...
// narrows it for local work (`codex@previous` names only the previous pin, `codex@current` only the current).
const wanted = (process.env.REINS_CONFORMANCE_HARNESSES ?? 'all').split(',').filter(Boolean);
const wants = (id: string, pin: HarnessPin) =>
  wanted.includes('all') || wanted.includes(id) || wanted.includes(`${id}@${pin}`);
const runs = conformanceTargetIds().flatMap((id) =>
  (['current', 'previous'] as const)
    .filter((pin) => (pin === 'current' || hasPreviousPin(id)) && wants(id, pin))
    .map((pin) => ({ id, pin })),
);

for (const { id, pin } of runs) {
  const binary = () => harnessBinary(id as Parameters<typeof harnessBinary>[0], undefined, pin);
  describe(`conformance: ${id}${pin === 'previous' ? ' (previous pin)' : ''}`, () => {
    for (const behaviour of BEHAVIOURS) {
      it(behaviour.name, async (context) => {
        await assertHermetic();
        const pinned = binary();
        const [result] = await runConformance(conformanceTarget(id, { binary: pinned }), { only: [behaviour.name] });
        const label = `${id} ${pinned.version} / ${behaviour.name}`;
        if (result?.status === 'skipped') context.skip(result.reason);
        // A known harness limitation that Reins reported honestly is conformant; it shows in the log.
        if (result?.status === 'limited') {
          console.info(`${label}: limited: ${result.reason}`);
          return;
        }
        expect(result?.reason ?? '', label).toBe('');
        expect(result?.status).toBe('passed');
      }, 300_000);
    }
  });
}
