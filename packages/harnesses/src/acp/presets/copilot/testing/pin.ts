// GitHub Copilot CLI's pinned CLI in harness-clis/ (the native binary of its platform package) and what it
// prints for --version.
import { join } from 'node:path';
import { type HarnessPinSpec, linuxCpu } from '../../../../testing.js';
import { ACP_SDK } from '../../../testing/agents.js';

export const COPILOT_PIN = {
  id: 'copilot',
  packageName: '@github/copilot',
  sdk: ACP_SDK,
  locate: (place) => ({ command: join(place.dep(`@github/copilot-linux-${linuxCpu}`), 'copilot'), args: [] }),
  versionOutput: (version) => `GitHub Copilot CLI ${version}`,
} satisfies HarnessPinSpec;
