// Which translation fuzz targets `npm run fuzz -- --adapters` can pick: the harness folders with a
// testing/fuzz.ts (each manifest's testing.fuzz loads it; translate.fuzz.test.ts checks the two agree), read
// from the source tree so that `npm run fuzz` needs no build and no list names a harness.
// Plain Node ESM with no dependencies; types in fuzz-targets.d.mts.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HARNESS_SOURCE = fileURLToPath(new URL('../../harnesses/src/', import.meta.url));

/** The harness ids with a fuzz target, sorted. */
export function fuzzAdapterNames(source = HARNESS_SOURCE) {
  return readdirSync(source, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(source, entry.name, 'testing', 'fuzz.ts')))
    .map((entry) => entry.name)
    .sort();
}
