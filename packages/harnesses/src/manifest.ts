// What Reins knows about one harness without loading its adapter (docs/architecture/adding-a-harness.md):
// every list of harnesses — the registry, discovery, `reins doctor`, the testkit's pinned CLIs — is
// derived from the manifests (manifests.ts), never typed out again.
import type { Harness, HarnessId, ImplementedCapabilities } from '@reins/core';
import type { BinarySpec } from './runtime/discovery.js';
import type { HarnessOptions } from './runtime/options.js';
import type { HarnessTesting } from './testing.js';

export interface HarnessManifest {
  id: HarnessId;
  displayName: string;
  /** How to find and version the binary (names, version arguments and parsing); absent for `acp`, whose binary is the command it is given. */
  binary?: BinarySpec;
  /** The command that installs it, for hints: 'npm install -g @openai/codex'. */
  install: string;
  /** The npm package users install (and harness-clis pins), when it comes from npm. */
  npmPackage?: string;
  /** The first of each capability's three layers (advertised and observed come from evidence). */
  implemented: ImplementedCapabilities;
  /** CLI versions this adapter was tested on (the pins and the previous pins). */
  testedVersions: readonly string[];
  /** Its test side, for harnesses pinned in harness-clis/ (testing.ts): the pin, and what the testkit loads. */
  testing?: HarnessTesting;
  /** Loads the adapter (a dynamic import, so one harness never loads another's SDK) and makes the harness. */
  load(options: HarnessOptions & Record<string, unknown>): Promise<Harness>;
}
