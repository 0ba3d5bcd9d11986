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
  /** How `reins doctor` checks, on Linux, that the harness's own sandbox runs here; absent: doctor has no check. */
  ownSandbox?: OwnSandboxCheck;
  /**
   * A session opened while the harness's warm process still starts waits for it and takes it, so a bridge
   * warms one as it starts (cli bridge.ts). Absent: a session beside a warm process still starting would
   * start cold, and the warm one is wasted.
   */
  sessionsWaitForWarm?: boolean;
  /** Loads the adapter (a dynamic import, so one harness never loads another's SDK) and makes the harness. */
  load(options: HarnessOptions & Record<string, unknown>): Promise<Harness>;
}

/** A harness's own sandbox (capability sandbox, implemented by the harness), as `reins doctor` probes it. */
export type OwnSandboxCheck =
  /** Made of tools found on PATH: which are missing, and the command that installs them. */
  | { kind: 'tools-on-path'; missing(path: string | undefined): string[]; install: string }
  /**
   * The harness runs a command in its sandbox (`<binary> ...args sh -c <probe>`). Its sandbox lets
   * commands write the temp folders, so a probe there would prove nothing.
   */
  | { kind: 'write-probe'; args: readonly string[] };
