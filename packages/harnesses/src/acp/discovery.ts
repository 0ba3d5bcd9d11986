// Binary specs for ACP agents: the names each is installed under and how its version reads.
// The generic `acp` harness derives its spec from the command it is given.
import { basename } from 'node:path';
import type { HarnessId } from '@reins/core';
import type { BinarySpec } from '../runtime/index.js';

export function binarySpec(id: HarnessId, names: string[], extra: Partial<BinarySpec> = {}): BinarySpec {
  return { id, names, ...extra };
}

/** The spec for an arbitrary ACP command: found under its own name (or used as given when absolute). */
export function commandSpec(command: string): BinarySpec {
  return { id: 'acp', names: [basename(command)] };
}
