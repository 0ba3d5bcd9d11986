// Conformance targets for the pinned harness CLIs in harness-clis/: each builds the harness through
// the public registry, pointed at the scripted model server by the testkit's hermetic home.
// Used by the real-CLI test tier, `reins conformance` and `reins demo`.

import type { HarnessId } from '@reins/core';
import {
  type AnyHarnessOptions,
  CONFORMANCE_ALTERNATE_MODEL,
  type ConformanceKit,
  type ConformanceRecipe,
  createHarness,
  HARNESS_MANIFESTS,
  type HarnessManifest,
} from '@reins/harnesses';
import { harnessLaunch, privateTmpWrapper } from '../harness-homes/index.js';
import { type HarnessBinary, harnessBinary, harnessClisDir, type HarnessId as PinnedId } from '../hermetic/binaries.js';
import { makeTempHome } from '../hermetic/temp-home.js';
import type { ConformanceModels, ConformanceTarget } from './target.js';

/** Each harness's recipe, from its manifest's testing part (testing/conformance.ts in its folder). */
function recipesOf(manifests: readonly HarnessManifest[]): Map<HarnessId, ConformanceRecipe> {
  return new Map(
    manifests.flatMap((manifest) =>
      manifest.testing?.conformance ? [[manifest.id, manifest.testing.conformance] as const] : [],
    ),
  );
}

const RECIPES = recipesOf(HARNESS_MANIFESTS);

const KIT: ConformanceKit = { privateTmpWrapper, harnessClisDir };

/** The harnesses with a conformance target; `manifests` is for a test that adds a harness of its own. */
export function conformanceTargetIds(manifests: readonly HarnessManifest[] = HARNESS_MANIFESTS): HarnessId[] {
  return [...recipesOf(manifests).keys()];
}

export interface TargetOverrides {
  /** Run this binary instead of the pinned one (`reins conformance` checks the user's own). */
  binary?: HarnessBinary;
  /** Merged into the harness options. */
  harnessOptions?: AnyHarnessOptions;
}

export function conformanceTarget(id: HarnessId, overrides: TargetOverrides = {}): ConformanceTarget {
  const recipe = RECIPES.get(id);
  if (!recipe)
    throw new Error(`No conformance target for ${id}: the pinned CLIs cover ${conformanceTargetIds().join(', ')}.`);
  return {
    id,
    ...(recipe.notApplicable ? { notApplicable: recipe.notApplicable } : {}),
    ...(recipe.knownLimitations ? { knownLimitations: recipe.knownLimitations } : {}),
    async setup(server, workdir) {
      const tempHome = await makeTempHome(`reins-${id}-`);
      const binary = overrides.binary ?? harnessBinary(id as PinnedId);
      const launch = await harnessLaunch(id as PinnedId, {
        modelServerUrl: server.url,
        tempHome,
        binary,
        extraModels: [CONFORMANCE_ALTERNATE_MODEL],
      });
      const harness = await createHarness(id, {
        ...(recipe.options({ binary, home: launch.home, workdir, tempHome }, KIT) as AnyHarnessOptions),
        ...overrides.harnessOptions,
      });
      const models: ConformanceModels = {
        primary: recipe.primary ?? launch.home.models[0] ?? 'fake-model',
        alternate: recipe.alternate ?? CONFORMANCE_ALTERNATE_MODEL,
        ...(recipe.alternateOnWire ? { alternateOnWire: recipe.alternateOnWire } : {}),
      };
      return { harness, models, dispose: () => tempHome.cleanup() };
    },
  };
}
