// Every harness Reins knows, by BINDING id, loaded on demand so `reins run -H codex` does not
// load the Claude SDK. An id with no adapter yet is known but not available.
import { HARNESS_IDS, type Harness, type HarnessId, isHarnessId, ReinsError } from '@reins/core';
import type { HarnessOptions } from './runtime/options.js';

type Loader = (options: HarnessOptions) => Promise<Harness>;

const LOADERS: Partial<Record<HarnessId, Loader>> = {};

/** Adds (or replaces) the loader for an id; adapters register here as they land. */
export function registerHarness(id: HarnessId, loader: Loader): void {
  LOADERS[id] = loader;
}

/** Ids with an adapter in this build, in the BINDING order. */
export function availableHarnessIds(): HarnessId[] {
  return HARNESS_IDS.filter((id) => LOADERS[id] !== undefined);
}

export async function createHarness(id: string, options: HarnessOptions = {}): Promise<Harness> {
  if (!isHarnessId(id)) {
    throw new ReinsError(
      'invalid_input',
      `Unknown harness "${id}". Known harnesses: ${HARNESS_IDS.join(', ')}.`,
      { operation: 'createHarness', data: { known: [...HARNESS_IDS] } },
    );
  }
  const loader = LOADERS[id];
  if (!loader) {
    throw new ReinsError(
      'unsupported_capability',
      `The ${id} harness has no adapter in this build of Reins yet. Available: ${availableHarnessIds().join(', ') || 'none'}.`,
      { harness: id, operation: 'createHarness' },
    );
  }
  return loader(options);
}
