// Every harness Reins knows, one manifest each, in the order of core's HARNESS_IDS. The registry,
// discovery's default binary specs, `reins doctor` and the testkit's lists are derived from this.
import { HARNESS_IDS, type HarnessId } from '@reins/core';
import { ACP_MANIFESTS } from './acp/manifest.js';
import { AMP_MANIFEST } from './amp/manifest.js';
import { CLAUDE_CODE_MANIFEST } from './claude-code/manifest.js';
import { CODEX_MANIFEST } from './codex/manifest.js';
import type { HarnessManifest } from './manifest.js';
import { OPENCLAW_MANIFEST } from './openclaw/manifest.js';
import { PI_MANIFEST } from './pi/manifest.js';
import type { BinarySpec } from './runtime/discovery.js';

const BY_ID = new Map<HarnessId, HarnessManifest>(
  [CLAUDE_CODE_MANIFEST, CODEX_MANIFEST, ...ACP_MANIFESTS, PI_MANIFEST, OPENCLAW_MANIFEST, AMP_MANIFEST].map(
    (manifest) => [manifest.id, manifest],
  ),
);

/** Every manifest, in HARNESS_IDS order. */
export const HARNESS_MANIFESTS: readonly HarnessManifest[] = HARNESS_IDS.flatMap((id) => {
  const manifest = BY_ID.get(id);
  return manifest ? [manifest] : [];
});

export function harnessManifest(id: HarnessId): HarnessManifest | undefined {
  return BY_ID.get(id);
}

/** How to find a harness's binary (from its manifest); undefined for `acp`, which is the command it is given. */
export function defaultBinarySpec(id: HarnessId): BinarySpec | undefined {
  return BY_ID.get(id)?.binary;
}
