// The harnesses' translation fuzz targets, each loaded from its manifest's testing part (testing/fuzz.ts in
// its folder, docs/architecture/adding-a-harness.md) and handed the testkit's fixture reader and enum-field
// scanners, so a harness folder never imports the testkit.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FuzzKit, type FuzzTarget, HARNESS_MANIFESTS, type HarnessManifest } from '@reins/harnesses';
import { readFixtureSync } from '../recorder/fixture.js';
import { enumFieldsFromJsonSchema, enumFieldsFromTypeScript } from './wire-enums.js';

/** Files under `dir` (recursively) whose names end in `suffix`, in name order. */
function filesUnder(dir: string, suffix: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((name) => name.endsWith(suffix))
    .sort()
    .map((name) => join(dir, name));
}

export const FUZZ_KIT: FuzzKit = {
  loadCorpus: (dir) => filesUnder(dir, '.jsonl').map((path) => readFixtureSync(path)),
  enumFieldsOf: (...paths) =>
    enumFieldsFromTypeScript(
      paths
        .flatMap((path) => (path.endsWith('.ts') ? [path] : filesUnder(path, '.ts')))
        .map((file) => readFileSync(file, 'utf8')),
    ),
  enumFieldsFromJsonSchema,
};

/** The ids whose manifest has a fuzz target, in manifest order. */
export function fuzzTargetIds(manifests: readonly HarnessManifest[] = HARNESS_MANIFESTS): string[] {
  return manifests.flatMap((manifest) => (manifest.testing?.fuzz ? [manifest.id] : []));
}

/** Every harness's fuzz target, built; each is named by its harness id (a mismatch is an error). */
export async function harnessFuzzTargets(
  manifests: readonly HarnessManifest[] = HARNESS_MANIFESTS,
): Promise<FuzzTarget[]> {
  const targets: FuzzTarget[] = [];
  for (const manifest of manifests) {
    const load = manifest.testing?.fuzz;
    if (!load) continue;
    const target = (await load())(FUZZ_KIT);
    if (target.name !== manifest.id)
      throw new Error(`The ${manifest.id} manifest's fuzz target is named "${target.name}": name it "${manifest.id}".`);
    targets.push(target);
  }
  return targets;
}
