// The README's test command (`npm test` = scripts/test.mjs) with fake npm, npx and node first and alone on PATH, so
// no Debian package is found: every tier still runs when one fails, the tests needing a missing package are left
// out and named, the exit code says whether something failed, and with CI=true a missing package is a failure.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const testScript = fileURLToPath(new URL('../../../scripts/test.mjs', import.meta.url));

let dir: string;
let bin: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-cli-test-command-'));
  bin = join(dir, 'bin');
  await mkdir(bin);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Fakes that log their arguments; `npx` fails the tiers named in `failing`. */
async function fakes(failing: string[] = []): Promise<void> {
  const fake = async (name: string, body = '') => {
    await writeFile(join(bin, name), `#!/bin/sh\necho "${name} $*" >> ${dir}/calls.log\n${body}\n`);
    await chmod(join(bin, name), 0o755);
  };
  await fake('npm');
  await fake('node');
  const fails = failing.map((tier) => `case "$*" in *"--project ${tier}"*) exit 1;; esac`).join('\n');
  await fake('npx', fails);
}

function npmTest(extraEnv: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const env = { PATH: bin, HOME: dir, ...extraEnv };
    execFile(process.execPath, [testScript], { env, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

const calls = async () => (await readFile(join(dir, 'calls.log'), 'utf8')).trim().split('\n');

describe('npm test (scripts/test.mjs)', () => {
  it('runs every tier although one fails, leaves out and names the tests of missing packages, exits 1', async () => {
    await fakes(['process']);
    const { code, output } = await npmTest();
    expect(code, output).toBe(1);
    const log = await calls();
    expect(log[0]).toBe('npm run build');
    expect(log.some((line) => line.startsWith('npx vitest run --passWithNoTests --project unit'))).toBe(true);
    const real = log.find((line) => line.includes('--project real'));
    expect(real).toMatch(/^node packages\/testkit\/bin\/hermetic\.mjs -- npx vitest run/);
    // Without nats-server, chromium and tmux their tests are excluded, in both tiers that hold them.
    expect(real).toContain('--exclude packages/daemon/test/cluster/**');
    expect(real).toContain('--exclude packages/cli/test/chat.real.test.ts');
    expect(log.find((line) => line.includes('--project process'))).toContain(
      '--exclude packages/daemon/test/cluster/**',
    );
    expect(output).toMatch(/summary: packages passed · unit tier passed · process tier FAILED · real tier passed/);
    expect(output).toMatch(
      /NOT RUN for a missing package \(npm run setup installs it\): .*needs nats-server.*needs chromium/,
    );
  });

  it('exits 0 when every tier passed, even with tests left out for a missing package', async () => {
    await fakes();
    const { code, output } = await npmTest();
    expect(code, output).toBe(0);
    expect(output).toMatch(/NOT RUN for a missing package/);
  });

  it('with CI=true a missing package is a failure', async () => {
    await fakes();
    const { code, output } = await npmTest({ CI: 'true' });
    expect(code, output).toBe(1);
    expect(output).toMatch(
      /CI=true and nats-server, chromium, bubblewrap, socat, tmux missing: on CI nothing may be skipped/,
    );
  });

  it('stops at a failed build: no tier can run', async () => {
    await fakes();
    await writeFile(join(bin, 'npm'), `#!/bin/sh\necho "npm $*" >> ${dir}/calls.log\nexit 2\n`);
    const { code, output } = await npmTest();
    expect(code).toBe(1);
    expect(output).toMatch(/the build failed, so no tier can run/);
    expect(await calls()).toEqual(['npm run build']);
  });
});
