// Pi (`pi --mode rpc`): the adapter factory and what tests and the registry need from this folder.
export { createPiHarness, PI_IMPLEMENTED, type PiHarnessOptions, piLaunchArgs, splitPiModel } from './adapter.js';
export { PI_BINARY, PI_TESTED_VERSIONS } from './discovery.js';
