// OpenClaw's pinned CLI in harness-clis/ (it needs Node >= 24.16: harness-clis' Node 24) and what --version prints.
import { type HarnessPinSpec, nodeScript } from '../../testing.js';

export const OPENCLAW_PIN = {
  id: 'openclaw',
  packageName: 'openclaw',
  locate: nodeScript('openclaw.mjs', 'bundled'),
  versionOutput: (version) => `OpenClaw ${version}`,
} satisfies HarnessPinSpec;
