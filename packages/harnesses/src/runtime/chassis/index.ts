// The session chassis every adapter composes: turns, guards, watchdog, honest settings.

export { HarnessBinary } from './harness-binary.js';
export type { CommitEmission, FrameMeta, FrameSink } from './held-emissions.js';
export {
  type ProviderFailure,
  providerError,
  providerFailureOf,
  providerKindOf,
  statusIn,
} from './provider-failure.js';
export {
  type ChassisOptions,
  type ChassisTurn,
  COMPACT_INPUT,
  DEFAULT_INTERRUPT_GRACE_MS,
  DEFAULT_STALL_TIMEOUT_MS,
  SessionChassis,
  type StructuredResult,
  type TurnHost,
} from './session-chassis.js';
export { acceptSessionSpec, assertWorkingDirectory, type SpecSupport } from './session-spec.js';
