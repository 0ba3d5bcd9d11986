// codex-acp's version comes from ACP `initialize` (agentInfo.version), because 0.16.0 refuses `--version`:
// discovery, health and the session's harnessVersion all say what initialize said. Against the fake ACP
// agent, whose `--version` prints another version (0.0.7), so the test tells the two sources apart.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeHarnessPath } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../../../runtime/index.js';
import { AcpHarness, type AcpHarnessOptions } from '../../adapter.js';
import { codexAcpPreset } from './preset.js';

const createCodexAcpHarness = (options: AcpHarnessOptions) => new AcpHarness(codexAcpPreset, options);

const FAKE = fakeHarnessPath('acp');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-codex-acp-version-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const scenarioEnv = (version: string) => ({
  PATH: process.env.PATH,
  FAKE_ACP_SCENARIO: JSON.stringify({ agentInfo: { name: 'codex-acp', title: 'Codex', version }, replies: [] }),
});

describe('codex-acp version', () => {
  it('is read from initialize agentInfo.version, not from --version', async () => {
    const harness = createCodexAcpHarness({ binaryPath: FAKE, baseEnv: scenarioEnv('0.16.0'), requestTimeoutMs: 5000 });
    const discovery = await harness.discover();
    expect(discovery.found && discovery.binary.version).toBe('0.16.0');
    const health = await harness.health();
    expect(health).toMatchObject({ status: 'ready', binary: { version: '0.16.0' } });
    expect(liveProcessCount()).toBe(0);
  });

  it('is read the same way for a codex-acp found on PATH', async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin);
    const shim = join(bin, 'codex-acp');
    await writeFile(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE)} "$@"\n`);
    await chmod(shim, 0o755);
    const env = { ...scenarioEnv('0.16.1'), PATH: `${bin}:${process.env.PATH}`, REINS_DISABLE_HARNESS: '' };
    const discovery = await createCodexAcpHarness({ baseEnv: env, requestTimeoutMs: 5000 }).discover();
    expect(discovery.found && discovery.binary).toMatchObject({ path: shim, source: 'path', version: '0.16.1' });
  });

  it('is absent, with the reason, when the binary does not answer initialize', async () => {
    const silent = join(dir, 'not-an-agent');
    await writeFile(silent, '#!/bin/sh\necho "error: unexpected argument" >&2\nexit 2\n');
    await chmod(silent, 0o755);
    const harness = createCodexAcpHarness({
      binaryPath: silent,
      baseEnv: { PATH: process.env.PATH },
      requestTimeoutMs: 5000,
    });
    const discovery = await harness.discover();
    expect(discovery.found).toBe(true);
    expect(discovery.found && discovery.binary.version).toBeUndefined();
    expect(liveProcessCount()).toBe(0);
  });
});
