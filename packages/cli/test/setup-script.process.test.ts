// The README's set-up step (scripts/setup.mjs) on a machine without the Debian packages the tests need: a fake
// apt-get (and npm) first and alone on PATH; it installs each missing package, or names it and goes on.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const setupScript = fileURLToPath(new URL('../../../scripts/setup.mjs', import.meta.url));
const PACKAGES = ['nats-server', 'chromium', 'bubblewrap', 'socat', 'tmux'];
const BINARIES = ['nats-server', 'chromium', 'bwrap', 'socat', 'tmux'];

let dir: string;
let bin: string;
let installed: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-cli-setup-'));
  bin = join(dir, 'bin');
  installed = join(dir, 'installed');
  await mkdir(bin);
  await mkdir(installed);
  await symlink(process.execPath, join(bin, 'node'));
  await symlink('/usr/bin/env', join(bin, 'env'));
  await script('npm', `echo "npm $*" >> ${dir}/calls.log`);
  await script('sudo', `echo "sudo $*" >> ${dir}/calls.log; exec "$@"`);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function script(name: string, body: string): Promise<void> {
  await writeFile(join(bin, name), `#!/bin/sh\n${body}\n`);
  await chmod(join(bin, name), 0o755);
}

/** A fake apt-get that logs its calls; `install` makes each package's binary appear on PATH, unless `failing`. */
async function fakeAptGet(failing: boolean): Promise<void> {
  const make = PACKAGES.map(
    (pkg, index) =>
      `  case " $* " in *" ${pkg} "*) printf '#!/bin/sh\\n' > ${installed}/${BINARIES[index]}; /bin/chmod +x ${installed}/${BINARIES[index]};; esac`,
  ).join('\n');
  await script(
    'apt-get',
    [
      `echo "apt-get DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*" >> ${dir}/calls.log`,
      failing ? 'echo "E: Unable to locate package" >&2; exit 100' : `if [ "$1" = install ]; then\n${make}\nfi`,
    ].join('\n'),
  );
}

function setup(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const env = { PATH: `${bin}:${installed}`, HOME: dir };
    execFile(process.execPath, [setupScript], { env, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

const calls = async () => (await readFile(join(dir, 'calls.log'), 'utf8')).trim().split('\n');

describe('npm run setup (scripts/setup.mjs)', () => {
  it('installs the missing Debian packages with apt-get (update once first) and, beside it, the harness CLIs', async () => {
    await fakeAptGet(false);
    const { code, output } = await setup();
    expect(code, output).toBe(0);
    const log = (await calls()).map((line) => line.replace(/^sudo env DEBIAN_FRONTEND=noninteractive /, ''));
    expect(log.filter((line) => line.startsWith('apt-get'))).toEqual([
      'apt-get DEBIAN_FRONTEND=noninteractive update -qq',
      `apt-get DEBIAN_FRONTEND=noninteractive install -y -qq ${PACKAGES.join(' ')}`,
    ]);
    expect(log).toContain('npm ci --prefix harness-clis --no-audit --no-fund');
    for (const [index, pkg] of PACKAGES.entries()) {
      expect(output).toMatch(new RegExp(`${pkg}: missing \\(.+\\)`));
      expect(output).toContain(`${pkg}: installed at ${join(installed, BINARIES[index] as string)}`);
    }
    expect(output).toMatch(/done: everything the README commands need is installed/);
  });

  it('names each package it could not install, says why it is needed, and goes on', async () => {
    await fakeAptGet(true);
    const { code, output } = await setup();
    expect(code, output).toBe(0);
    for (const pkg of PACKAGES) {
      expect(output).toMatch(
        new RegExp(`NOT INSTALLED: ${pkg}; install it yourself \\(e.g. sudo apt-get install ${pkg}\\): .+`),
      );
    }
    expect(await calls()).toContain('npm ci --prefix harness-clis --no-audit --no-fund');
    expect(output).toMatch(/done, without nats-server, chromium, bubblewrap, socat, tmux: `npm test` skips the tests/);
  });

  it('names them without apt-get (another Linux or macOS)', async () => {
    const { code, output } = await setup();
    expect(code, output).toBe(0);
    expect(output).toMatch(/cannot install here \(needs apt-get/);
    for (const pkg of PACKAGES) expect(output).toContain(`NOT INSTALLED: ${pkg}`);
  });
});
