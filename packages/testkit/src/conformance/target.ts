// What the conformance suite needs to drive one harness: how to make it talk to the scripted
// model server, and the model ids its hermetic home knows. Everything else goes through the
// public Harness / Session API only.
import type { Harness, HarnessId, SessionSpec } from '@reins/core';
import type { ModelServer } from '../model-server/index.js';

export interface ConformanceModels {
  /** The model the session starts with. */
  primary: string;
  /** Another model the harness accepts, for the switch behaviour. */
  alternate: string;
  /** What the model server sees for `alternate` when the harness names it differently (qwen `x(openai)`, opencode `fake/x`). */
  alternateOnWire?: string;
}

export interface ConformanceSetup {
  harness: Harness;
  /** Merged into every SessionSpec the suite creates (cwd is the suite's temp workspace). */
  spec?: Partial<SessionSpec>;
  models: ConformanceModels;
  /** Releases what setup made (temp homes, gateways). */
  dispose?: () => Promise<void>;
}

export interface ConformanceTarget {
  id: HarnessId;
  /** Builds the harness wired to `server`, with a fresh hermetic home under `workdir`. */
  setup(server: ModelServer, workdir: string): Promise<ConformanceSetup>;
  /** Behaviours that cannot apply to this harness, with the reason (reported as skipped). */
  notApplicable?: Partial<Record<string, string>>;
  /**
   * What the harness itself cannot do, by behaviour, with the versions seen: a behaviour that ends
   * on an honest HarnessLimitation is `limited` when listed here, `failed` when not.
   */
  knownLimitations?: Partial<Record<string, string>>;
}
