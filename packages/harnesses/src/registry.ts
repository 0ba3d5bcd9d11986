// Every harness Reins knows, by public id (from the manifests), loaded on demand so `reins run -H codex`
// does not load the Claude SDK. An id with no adapter yet is known but not available.
import { HARNESS_IDS, type Harness, type HarnessId, isHarnessId, ReinsError } from '@reins/core';
import { HARNESS_MANIFESTS } from './manifests.js';
import type { HarnessOptions } from './runtime/options.js';
import { withResumeFallback } from './runtime/resume-fallback.js';

/** Options for any harness; harness-specific fields (the generic ACP command, ...) ride along. */
export type AnyHarnessOptions = HarnessOptions & Record<string, unknown>;
type Loader = (options: AnyHarnessOptions) => Promise<Harness>;

const LOADERS: Partial<Record<HarnessId, Loader>> = Object.fromEntries(
  HARNESS_MANIFESTS.map((manifest) => [manifest.id, manifest.load]),
);

/** Adds (or replaces) the loader for an id; adapters register here as they land. */
export function registerHarness(id: HarnessId, loader: Loader): void {
  LOADERS[id] = loader;
}

/** Ids with an adapter in this build, in the order of core HARNESS_IDS. */
export function availableHarnessIds(): HarnessId[] {
  return HARNESS_IDS.filter((id) => LOADERS[id] !== undefined);
}

export async function createHarness(id: string, options: AnyHarnessOptions = {}): Promise<Harness> {
  if (!isHarnessId(id)) {
    throw new ReinsError('invalid_input', `Unknown harness "${id}". Known harnesses: ${HARNESS_IDS.join(', ')}.`, {
      operation: 'createHarness',
      data: { known: [...HARNESS_IDS] },
    });
  }
  const loader = LOADERS[id];
  if (!loader) {
    throw new ReinsError(
      'unsupported_capability',
      `The ${id} harness has no adapter in this build of Reins yet. Available: ${availableHarnessIds().join(', ') || 'none'}.`,
      { harness: id, operation: 'createHarness' },
    );
  }
  return withResumeFallback(await loader(options));
}
