// The conformance suite against every pinned real CLI that has an adapter, hermetically. Each
// behaviour is its own test, so a failure names the harness, the behaviour and the reason.
import { afterAll, describe, expect, it } from 'vitest';
import { assertHermetic } from '../src/hermetic/index.js';
import { BEHAVIOURS, conformanceTarget, conformanceTargetIds, runConformance } from '../src/index.js';

const only = process.env.REINS_CONFORMANCE_HARNESSES?.split(',').filter(Boolean);
const ids = conformanceTargetIds().filter((id) => !only || only.includes(id));

for (const id of ids) {
  describe(`conformance: ${id}`, () => {
    afterAll(() => {});
    for (const behaviour of BEHAVIOURS) {
      it(behaviour.name, async (context) => {
        await assertHermetic();
        const [result] = await runConformance(conformanceTarget(id), { only: [behaviour.name] });
        if (result?.status === 'skipped') context.skip(result.reason);
        expect(result?.reason ?? '', `${id} / ${behaviour.name}`).toBe('');
        expect(result?.status).toBe('passed');
      }, 300_000);
    }
  });
}
