// The conformance suite against every pinned real CLI that has an adapter, hermetically. Each
// behaviour is its own test, so a failure names the harness, the behaviour and the reason.
import { describe, expect, it } from 'vitest';
import { assertHermetic } from '../src/hermetic/index.js';
import { BEHAVIOURS, conformanceTarget, conformanceTargetIds, runConformance } from '../src/index.js';

// Every pinned CLI with a target runs the whole suite (in CI too: about 15 min on 2 cores, most of it
// harnesses retrying sustained 5xx). REINS_CONFORMANCE_HARNESSES=codex,pi,... narrows it for local work.
const wanted = (process.env.REINS_CONFORMANCE_HARNESSES ?? 'all').split(',').filter(Boolean);
const ids = conformanceTargetIds().filter((id) => wanted.includes('all') || wanted.includes(id));

for (const id of ids) {
  describe(`conformance: ${id}`, () => {
    for (const behaviour of BEHAVIOURS) {
      it(behaviour.name, async (context) => {
        await assertHermetic();
        const [result] = await runConformance(conformanceTarget(id), { only: [behaviour.name] });
        if (result?.status === 'skipped') context.skip(result.reason);
        // A known harness limitation that Reins reported honestly is conformant; it shows in the log.
        if (result?.status === 'limited') {
          console.info(`${id} / ${behaviour.name}: limited: ${result.reason}`);
          return;
        }
        expect(result?.reason ?? '', `${id} / ${behaviour.name}`).toBe('');
        expect(result?.status).toBe('passed');
      }, 300_000);
    }
  });
}
