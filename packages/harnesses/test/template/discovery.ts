// How Reins finds the template harness's binary and reads its version, and the install hint.
import type { HarnessId } from '@reins/core';
import type { BinarySpec } from '../../src/runtime/discovery.js';

export const TEMPLATE_INSTALL = 'npm install -g line-template';

export function templateBinary(id: HarnessId): BinarySpec {
  return { id, names: ['line-template'], parseVersion: (stdout) => /(\d+\.\d+\.\d+)/.exec(stdout)?.[1] };
}
