// Discovery against real processes: a real `bash -lc` login shell with a temp HOME, and version probes
// of small executables that answer, fail or hang.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from './child-process.js';
import { type BinarySpec, discoverBinary, fingerprintBinary, locateBinary, versionProbeFailure } from './discovery.js';
import { failedProbeHealth, harnessHealth } from './discovery-health.js';
import { runProbe } from './discovery-probe.js';

const SPEC: BinarySpec = { id: 'hermes', names: ['reins-fake-hermes'] };
let root: string;

async function executable(path: string, script: string): Promise<void> {
  await writeFile(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o755);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'reins-discovery-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('discovery with a real login shell', () => {
  it('finds the executable on the login-shell PATH and ignores a shell function with the same name', async () => {
    const home = join(root, 'home');
    const tools = join(root, 'tools');
    await mkdir(home);
    await mkdir(tools);
    await executable(join(tools, 'reins-fake-hermes'), 'echo "hermes 1.4.2"');
    // The function prints another version: if discovery ran the name through the shell, it would see 9.9.9.
    await writeFile(
      join(home, '.bash_profile'),
      `export PATH="${tools}:$PATH"\nreins-fake-hermes() { echo "hermes 9.9.9 (function)"; }\necho "welcome, this profile talks"\n`,
    );
    const env = { HOME: home, SHELL: '/bin/bash', PATH: '/usr/bin:/bin' };
    const result = await discoverBinary(SPEC, { env, home, probeTimeoutMs: 5000 });
    expect(result.found && result.binary).toMatchObject({
      path: join(tools, 'reins-fake-hermes'),
      source: 'login_shell',
      version: '1.4.2',
    });
    expect(result.found && result.binary.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a shell function alone is not a binary', async () => {
    const home = join(root, 'home');
    await mkdir(home);
    await writeFile(join(home, '.profile'), 'reins-fake-hermes() { echo "hermes 9.9.9"; }\n');
    // The process PATH has no /usr/bin, so it is first searched as part of the login shell's PATH.
    const env = { HOME: home, SHELL: '/bin/bash', PATH: join(root, 'empty') };
    const result = await discoverBinary(SPEC, { env, home });
    expect(result.found).toBe(false);
    expect(!result.found && result.searched).toContainEqual('login shell PATH (/bin/bash): /usr/bin');
  });

  it('a login profile that hangs is cut off at the deadline and discovery goes on', async () => {
    const home = join(root, 'home');
    const bin = join(home, '.local', 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(home, '.bash_profile'), 'sleep 30\n');
    await executable(join(bin, 'reins-fake-hermes'), 'echo 0.3.0');
    const env = { HOME: home, SHELL: '/bin/bash', PATH: '/usr/bin:/bin' };
    const result = await discoverBinary(SPEC, { env, home, loginShellTimeoutMs: 300 });
    expect(result.found && result.binary).toMatchObject({ source: 'known_location', version: '0.3.0' });
    expect(liveProcessCount()).toBe(0);
  });
});

describe('version probes of real executables', () => {
  it('a probe that hangs is killed at its deadline and reported as unhealthy', async () => {
    await executable(join(root, 'reins-fake-hermes'), 'sleep 30');
    const env = { HOME: root, PATH: `${root}:/usr/bin:/bin` };
    const result = await discoverBinary(SPEC, { env, home: root, probeTimeoutMs: 300 });
    expect(result.found && result.binary.path).toBe(join(root, 'reins-fake-hermes'));
    expect(result.probeError).toContain('did not answer within 300 ms');
    expect(liveProcessCount()).toBe(0);
    const health = await harnessHealth(result, { auth: async () => ({ status: 'ready' }) });
    expect(health.status).toBe('unhealthy');
  });

  it('a probe that fails carries its exit code and stderr', async () => {
    await executable(join(root, 'reins-fake-hermes'), 'echo "libfoo.so: cannot open shared object" >&2; exit 127');
    const result = await discoverBinary(SPEC, { env: { HOME: root, PATH: `${root}:/usr/bin:/bin` }, home: root });
    expect(result.probeError).toMatch(/exited with code 127: libfoo\.so: cannot open shared object/);
  });
});

describe('a binary that fails its version probe is unhealthy, however it was found', () => {
  // Amp's npm stub without its platform package (@ampcode/cli, seen 2026-12): found, but it cannot run.
  const STUB = 'echo "Amp native binary not installed" >&2; exit 1';

  it('locateBinary (session start, and the discover() of most adapters) remembers the failure', async () => {
    await executable(join(root, 'reins-fake-hermes'), STUB);
    const binary = await locateBinary(SPEC, { HOME: root, PATH: `${root}:/usr/bin:/bin` }, { home: root });
    expect(binary.path).toBe(join(root, 'reins-fake-hermes'));
    expect(binary.version).toBeUndefined();
    expect(versionProbeFailure(binary)?.message).toMatch(/exited with code 1: Amp native binary not installed/);
    expect(failedProbeHealth(binary)).toEqual({
      status: 'unhealthy',
      binary,
      message: expect.stringContaining('Amp native binary not installed'),
      fix: `Run \`${join(root, 'reins-fake-hermes')} --version\` to see why it fails, or reinstall it.`,
    });
  });

  it('fingerprintBinary (an explicit binaryPath) remembers it too; a binary that answers has none', async () => {
    const broken = join(root, 'broken');
    const working = join(root, 'working');
    await executable(broken, STUB);
    await executable(working, 'echo "hermes 1.4.2"');
    const env = { HOME: root, PATH: '/usr/bin:/bin' };
    const failed = await fingerprintBinary(broken, SPEC, 'explicit', env);
    expect(failedProbeHealth(failed)).toMatchObject({
      status: 'unhealthy',
      message: expect.stringContaining('Amp native binary not installed'),
    });
    const answered = await fingerprintBinary(working, SPEC, 'explicit', env);
    expect(answered.version).toBe('1.4.2');
    expect(versionProbeFailure(answered)).toBeUndefined();
    expect(failedProbeHealth(answered)).toBeUndefined();
  });
});

describe('runProbe', () => {
  it('keeps all of stdout even when the exit is seen before the last output is read', async () => {
    // Seen with `reins doctor` (13 harnesses probed at once): 'exit' arrived before the version line was
    // read, and the version went missing. Many probes at once, each filling the pipe, make that order
    // likely (without the wait for the pipe to close this failed about one run in three).
    const outputs = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        runProbe({
          command: '/bin/sh',
          args: ['-c', `head -c 200000 /dev/zero | tr '\\0' x; echo; echo 'version ${i}.0.0'`],
          env: { PATH: '/usr/bin:/bin' },
          timeoutMs: 20_000,
        }),
      ),
    );
    outputs.forEach((output, i) => {
      expect(output).toMatchObject({ started: true, timedOut: false, code: 0 });
      expect(output.stdout.split('\n').at(-1)).toBe(`version ${i}.0.0`);
    });
  });
});
