// Every harness Reins knows, one manifest each, in the order of core's HARNESS_IDS. The registry,
// discovery's default binary specs, `reins doctor` and the testkit's lists are derived from this.
import { HARNESS_IDS, type HarnessId } from '@reins/core';
import { ACP_MANIFESTS, ACP_PINS } from './acp/manifest.js';
import { AMP_MANIFEST } from './amp/manifest.js';
import { CLAUDE_CODE_MANIFEST } from './claude-code/manifest.js';
import { CLAUDE_CODE_PIN } from './claude-code/testing/pin.js';
import { CODEX_MANIFEST } from './codex/manifest.js';
import { CODEX_PIN } from './codex/testing/pin.js';
import type { HarnessManifest } from './manifest.js';
import { OPENCLAW_MANIFEST } from './openclaw/manifest.js';
import { OPENCLAW_PIN } from './openclaw/testing/pin.js';
import { PI_MANIFEST } from './pi/manifest.js';
import { PI_PIN } from './pi/testing/pin.js';
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

/**
 * The pinned CLIs (harness-clis/package.json), in HARNESS_IDS order: the `testing.pin` of every manifest
 * that has one (manifests.test.ts checks the two agree), listed here so the testkit's ids keep literal types.
 */
export const HARNESS_PINS = [CLAUDE_CODE_PIN, CODEX_PIN, ...ACP_PINS, PI_PIN, OPENCLAW_PIN] as const;

/** A harness with a pinned CLI. */
export type PinnedHarnessId = (typeof HARNESS_PINS)[number]['id'];
/** A harness whose previous version is installed too. */
export type PreviousPinnedHarnessId = Extract<(typeof HARNESS_PINS)[number], { previous: object }>['id'];
