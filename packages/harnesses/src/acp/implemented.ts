// What the ACP mapping in this folder implements, shared by every preset's manifest and the adapter (its
// own module so that the manifests never import the adapter and the adapter never imports a manifest).
import type { ImplementedCapabilities } from '@reins/core';

/** What the ACP mapping in this folder implements (the `implemented` layer). */
export const ACP_IMPLEMENTED: ImplementedCapabilities = {
  resume: 'load_or_resume',
  fork: 'session_fork', // session/fork where the agent advertises sessionCapabilities.fork
  interrupt: true,
  steer: false,
  queue: true,
  liveModelSwitch: true,
  liveEffortSwitch: 'config_option',
  tokenDeltas: true,
  reasoningDeltas: true,
  images: true,
  structuredOutput: 'emulated',
  usage: true,
  cost: true,
  contextWindow: true,
  approvals: true,
  sessionList: true,
  history: 'session_load',
  compaction: true,
  sandbox: 'reins-bubblewrap', // posture workspace: Reins runs the agent under bubblewrap (runtime/confinement.ts)
};
