// Hermetic running of real harness CLIs: the namespace check, where the pinned CLIs live, temp homes.
export type {
  HermeticCheckDependencies,
  HermeticEvidence,
  ProbeOutcome,
} from './assert-hermetic.js';
export {
  assertHermetic,
  gatherHermeticEvidence,
  hermeticViolation,
  isHermetic,
  NON_LOOPBACK_PROBE_ADDRESS,
  NotHermeticError,
  probeNonLoopbackConnect,
} from './assert-hermetic.js';
export type { HarnessBinary, HarnessId } from './binaries.js';
export {
  bundledNodePath,
  HARNESS_IDS,
  HarnessNotInstalledError,
  harnessBinaries,
  harnessBinary,
  harnessClisDir,
  pinnedVersions,
} from './binaries.js';
export type { TempHome } from './temp-home.js';
export { makeTempHome } from './temp-home.js';
