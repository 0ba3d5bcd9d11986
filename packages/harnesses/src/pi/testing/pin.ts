// Pi's pinned CLI in harness-clis/ and what --version prints (on stderr, 0.73.1).
import { type HarnessPinSpec, nodeScript } from '../../testing.js';

export const PI_PIN = {
  id: 'pi',
  packageName: '@mariozechner/pi-coding-agent',
  locate: nodeScript('dist/cli.js', 'host'),
  versionOutput: (version) => version,
} satisfies HarnessPinSpec;
