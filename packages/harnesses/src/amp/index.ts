// Amp (`amp -x --stream-json --stream-json-input`): the adapter factory. No live session was observed.
export { AMP_IMPLEMENTED, AMP_LAUNCH_ARGS, type AmpHarnessOptions, createAmpHarness } from './adapter.js';
export { AMP_BINARY, AMP_KNOWN_VERSIONS } from './discovery.js';
