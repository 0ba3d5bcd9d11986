// @reins/harnesses: one adapter per harness over a shared runtime (processes, framing, JSON-RPC, the
// session chassis). Everything public is named here; adapters load on demand through the registry.

// What each harness's factory takes (type-only: importing them loads no adapter).
export type { AcpHarnessOptions } from './acp/adapter.js';
export type { AmpHarnessOptions } from './amp/adapter.js';
export type { ClaudeCodeHarnessOptions } from './claude-code/adapter.js';
// What Claude Code's sandbox (posture workspace) needs on PATH, for `reins doctor`.
export { missingSandboxTools } from './claude-code/posture.js';
export type { CodexHarnessOptions } from './codex/adapter.js';
// The Codex app-server wire types (generated from the pinned Codex), for the Codex app-server bridge.
export type * as CodexAppServerWire from './codex/wire/generated/index.js';
export type { HarnessManifest } from './manifest.js';
export {
  defaultBinarySpec,
  HARNESS_MANIFESTS,
  HARNESS_PINS,
  harnessManifest,
  type PinnedHarnessId,
  type PreviousPinnedHarnessId,
} from './manifests.js';
export type { OpenClawHarnessOptions } from './openclaw/adapter.js';
export type { PiHarnessOptions } from './pi/adapter.js';
// Creating harnesses (adapters are loaded only when used).
export { type AnyHarnessOptions, availableHarnessIds, createHarness, registerHarness } from './registry.js';
// Checkpoints found again in a later process (a resumed session, a restarted daemon).
export {
  type CheckpointEntry,
  CheckpointHistory,
  checkpointEntries,
  hasCheckpointRefs,
} from './runtime/checkpoints/index.js';
// Process hygiene, for hosts that own many sessions (the daemon, tests).
export {
  discardPrestartedChild,
  type ExitInfo,
  type FrameTap,
  type HarnessProcessObserver,
  liveProcessCount,
  observeHarnessProcesses,
} from './runtime/child-process.js';
// Reins' own confinement of the harnesses without a sandbox (posture workspace), for `reins doctor`'s probe.
export { confinedArgv, findBwrap } from './runtime/confinement.js';
// Discovery and health, for `reins doctor` and the daemon's harness/list.
export { type BinarySpec, type DiscoveryResult, discoverBinary } from './runtime/discovery.js';
export { type AuthCheck, harnessHealth } from './runtime/discovery-health.js';
// Capability evidence (the conformance suite writes it, everyone reads it).
export {
  capabilitiesFor,
  EvidenceStore,
  reinsHome,
  type SkippedLine,
  type StoredEvidence,
} from './runtime/evidence.js';
// The one newline framing and JSON-RPC peer, which the bridges speak their protocols with too.
export {
  type JsonRpcErrorObject,
  JsonRpcHandlerError,
  type JsonRpcId,
  JsonRpcPeer,
  type JsonRpcPeerOptions,
} from './runtime/json-rpc.js';
export { LineSplitter, type OnOversizeLine } from './runtime/lines.js';
export type { HarnessOptions } from './runtime/options.js';
// The harnesses' test side (their pinned CLIs and hermetic homes), which the testkit builds its lists from.
export {
  type BuiltHome,
  CONFORMANCE_ALTERNATE_MODEL,
  type ConformanceKit,
  type ConformanceLaunch,
  type ConformanceRecipe,
  type FuzzEnumField,
  type FuzzFixture,
  type FuzzFrame,
  type FuzzKit,
  type FuzzStream,
  type FuzzTarget,
  type FuzzTargetBuilder,
  type HarnessPinSpec,
  type HarnessTesting,
  type HarnessTools,
  type HomeBuilder,
  type HomeFolders,
  type HomeKit,
  type HomeRequest,
  type LocateBinary,
  type LocatedBinary,
  type ModelPrice,
  type PackagePlace,
  type ShellToolArgs,
  testingSource,
  type WriteToolArgs,
} from './testing.js';
