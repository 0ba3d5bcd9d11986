// How Reins finds the `openclaw` binary (it starts a local gateway with it) and the versions it was
// tested on. openclaw 2026.9.6 needs Node >= 24.16.
import type { BinarySpec } from '../runtime/discovery.js';

export const OPENCLAW_BINARY: BinarySpec = { id: 'openclaw', names: ['openclaw'] };
export const OPENCLAW_TESTED_VERSIONS = ['2026.9.6'];

/** How users install it (the manifest's install hint and the adapter's not-found message). */
export const OPENCLAW_INSTALL = 'npm install -g openclaw (needs Node >= 24.16)';
