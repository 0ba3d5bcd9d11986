// Amp cannot run a session here (it needs its own service: see docs/harnesses/amp.md), but the real pinned binary
// is installed in harness-clis: discovery and its version probe run against it, hermetically.
import { join } from 'node:path';
import { assertHermetic, harnessClisDir, pinnedVersions } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { createAmpHarness } from './adapter.js';

const PINNED = pinnedVersions()['@ampcode/cli'];
const binaryPath = join(harnessClisDir(), 'node_modules/@ampcode/cli-linux-x64/amp');

describe('amp discovery against the real pinned binary', () => {
  it('finds the binary, reads its version and fingerprints it', async () => {
    await assertHermetic();
    const harness = createAmpHarness({ binaryPath, baseEnv: { PATH: '/usr/bin:/bin', HOME: process.env.HOME } });
    const discovery = await harness.discover();
    expect(discovery.found).toBe(true);
    if (!discovery.found) return;
    expect(discovery.binary.version).toBe(PINNED);
    expect(discovery.binary.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(discovery.binary.source).toBe('explicit');
  });

  it('the same binary found through REINS_AMP_BIN, with nothing observed (no live session is possible here)', async () => {
    const harness = createAmpHarness({
      baseEnv: { PATH: '/nonexistent', HOME: process.env.HOME, REINS_AMP_BIN: binaryPath },
    });
    const discovery = await harness.discover();
    expect(discovery.found && discovery.binary.source).toBe('env');
    const matrix = await harness.capabilities();
    expect(Object.values(matrix).every((capability) => capability.observed.state !== 'yes')).toBe(true);
  });
});
