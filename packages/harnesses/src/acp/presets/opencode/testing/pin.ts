// OpenCode's pinned CLI in harness-clis/ (the native binary of its platform package) and what it prints
// for --version.
import { join } from 'node:path';
import { type HarnessPinSpec, hasAvx2, linuxCpu } from '../../../../testing.js';
import { ACP_SDK } from '../../../testing/agents.js';

export const OPENCODE_PIN = {
  id: 'opencode',
  packageName: 'opencode-ai',
  sdk: ACP_SDK,
  // The same choice opencode-ai's postinstall makes: the baseline build on x64 CPUs without AVX2.
  locate: (place) => ({
    command: join(
      place.dep(`opencode-linux-${linuxCpu}${linuxCpu === 'x64' && !hasAvx2() ? '-baseline' : ''}`),
      'bin/opencode',
    ),
    args: [],
  }),
  versionOutput: (version) => version,
} satisfies HarnessPinSpec;
