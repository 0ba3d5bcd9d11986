// Per-harness homes: config files plus a from-empty environment and launch arguments that point each real
// CLI at the scripted model server with every telemetry/update switch off. Each harness's home builder
// lives in its own folder (testing/home.ts, loaded through its manifest's testing part), handed the
// testkit's HomeKit (docs/architecture/adding-a-harness.md).
export { buildHarnessHome, type HarnessLaunch, harnessHomeBuilders, harnessLaunch } from './build.js';
export { baseEnvironment, harnessPath } from './environment.js';
export { freeLoopbackPort } from './free-port.js';
export { privateTmpDir, privateTmpWrapper } from './private-tmp.js';
export type { HarnessHome, HarnessHomeBuilder, HarnessHomeOptions, ModelPrice } from './types.js';
export { DEFAULT_FAKE_MODEL, FAKE_API_KEY } from './types.js';
