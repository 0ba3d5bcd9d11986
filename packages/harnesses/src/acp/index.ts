// ACP agents: the generic `acp` harness and the presets for the agents Reins knows (presets/<id>/).
export { ACP_IMPLEMENTED, AcpHarness, type AcpHarnessOptions, advertisedFrom } from './adapter.js';
export { acpPreset } from './manifest.js';
export type { AcpPreset, AcpQuirks } from './preset.js';
export { createAcpHarness, type GenericAcpOptions } from './presets/acp/preset.js';
export type { AcpSession } from './session.js';
