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
export type { HarnessBinary, HarnessId, HarnessPin, PreviousPinId } from './binaries.js';
export {
  allPinnedBinaries,
  bundledNodePath,
  HARNESS_IDS,
  HarnessNotInstalledError,
  harnessBinaries,
  harnessBinary,
  harnessClisDir,
  harnessPackageName,
  hasPreviousPin,
  PREVIOUS_PIN_IDS,
  pinnedVersion,
  pinnedVersions,
  previousAlias,
  previousHarnessBinary,
} from './binaries.js';
export type { TempHome } from './temp-home.js';
export { makeTempHome } from './temp-home.js';
