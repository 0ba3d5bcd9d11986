// Discovery order and candidate choice with an injected filesystem, prober and login shell: no real
// process runs here (discovery.process.test.ts has the real login shell and real probes).
import { ReinsError } from '@reins/core';
import { describe, expect, it, vi } from 'vitest';
import { claudeBinarySpec } from '../claude-code/discovery.js';
import { codexBinarySpec } from '../codex/discovery.js';
import { type BinarySpec, type DiscoverOptions, type DiscoveryFs, discoverBinary, locateBinary } from './discovery.js';
import { healthFromDiscovery } from './discovery-health.js';
import type { ShellRunner } from './discovery-locations.js';
import type { ProbeOutput } from './discovery-probe.js';

// The real specs: their names and their own install locations (~/.claude/local, ChatGPT.app's codex).
const CLAUDE: BinarySpec = claudeBinarySpec;
const CODEX: BinarySpec = codexBinarySpec;
const HOME = '/home/u';

interface FakeFile {
  /** Text for shims; executables default to a binary that answers with this version. */
  text?: string;
  version?: string;
  /** The probe fails with this error instead of answering. */
  fails?: string;
  /** Where a symlink points. */
  real?: string;
}

function fakeHost(files: Record<string, FakeFile>, shellPath?: string) {
  const probed: string[] = [];
  const fs: DiscoveryFs = {
    isExecutable: async (path) => path in files,
    realpath: async (path) => files[path]?.real ?? path,
    readText: async (path) => files[path]?.text,
    listDir: async (dir) => {
      const prefix = dir.endsWith('/') ? dir : `${dir}/`;
      return [
        ...new Set(
          Object.keys(files)
            .filter((path) => path.startsWith(prefix))
            .map((path) => path.slice(prefix.length).split('/')[0] as string),
        ),
      ];
    },
    sha256: async (path) => `${path.length.toString(16).padStart(2, '0')}`.padEnd(64, 'a'),
  };
  const runShell = vi.fn<ShellRunner>(async (): Promise<ProbeOutput> => {
    if (shellPath === undefined) {
      return { started: true, timedOut: false, code: 1, signal: null, stdout: '', stderr: 'bash: broken profile' };
    }
    return {
      started: true,
      timedOut: false,
      code: 0,
      signal: null,
      // A login profile that prints before PATH: the markers must skip it.
      stdout: `Welcome to the machine\n__REINS_PATH_START__${shellPath}__REINS_PATH_END__`,
      stderr: '',
    };
  });
  const options = (env: Record<string, string | undefined>, extra: Partial<DiscoverOptions> = {}): DiscoverOptions => ({
    env: { HOME, SHELL: '/bin/bash', ...env },
    platform: 'linux',
    home: HOME,
    execPath: '/opt/node/bin/node',
    fs,
    runShell,
    probe: async (path) => {
      probed.push(path);
      const file = files[path];
      if (file?.fails) return { answered: false, error: file.fails };
      return { answered: true, ...(file?.version ? { version: file.version } : {}) };
    },
    ...extra,
  });
  return { fs, runShell, probed, options };
}

describe('discoverBinary', () => {
  it('REINS_<ID>_BIN wins over PATH and is the only candidate tried', async () => {
    const host = fakeHost({ '/custom/claude': { version: '2.1.197' }, '/usr/bin/claude': { version: '9.9.9' } });
    const result = await discoverBinary(
      CLAUDE,
      host.options({ REINS_CLAUDE_CODE_BIN: '/custom/claude', PATH: '/usr/bin' }),
    );
    expect(result.found && result.binary).toMatchObject({ path: '/custom/claude', source: 'env', version: '2.1.197' });
    expect(host.probed).toEqual(['/custom/claude']);
  });

  it('a broken override is reported, not silently replaced by the PATH binary', async () => {
    const host = fakeHost({ '/usr/bin/claude': { version: '9.9.9' } });
    const result = await discoverBinary(
      CLAUDE,
      host.options({ REINS_CLAUDE_CODE_BIN: '/nope/claude', PATH: '/usr/bin' }),
    );
    expect(result.found).toBe(false);
    expect(!result.found && result.hint).toContain('REINS_CLAUDE_CODE_BIN');
  });

  it('refuses a relative override with invalid_input', async () => {
    const host = fakeHost({});
    await expect(discoverBinary(CLAUDE, host.options({ REINS_CLAUDE_CODE_BIN: 'claude' }))).rejects.toSatisfy(
      (error) => ReinsError.isInstance(error) && error.code === 'invalid_input',
    );
  });

  it('REINS_DISABLE_HARNESS=1 turns discovery off with a reason', async () => {
    const host = fakeHost({ '/usr/bin/claude': {} });
    const result = await discoverBinary(CLAUDE, host.options({ REINS_DISABLE_HARNESS: '1', PATH: '/usr/bin' }));
    expect(result.found).toBe(false);
    expect(!result.found && result.hint).toContain('REINS_DISABLE_HARNESS');
    expect(host.probed).toEqual([]);
  });

  it('takes the first PATH candidate whose probe answers and reports the others', async () => {
    const host = fakeHost({
      '/a/claude': { fails: '`/a/claude --version` exited with code 1: segfault' },
      '/b/claude': { version: '2.1.197' },
    });
    const result = await discoverBinary(CLAUDE, host.options({ PATH: '/a:/b' }));
    expect(result.found && result.binary).toMatchObject({ path: '/b/claude', source: 'path', version: '2.1.197' });
    expect(result.candidates.map((c) => [c.path, c.answered])).toEqual([
      ['/a/claude', false],
      ['/b/claude', true],
    ]);
    // A working PATH binary means the login shell is never started.
    expect(host.runShell).not.toHaveBeenCalled();
  });

  it("falls back to the login shell's PATH when the process PATH has no binary", async () => {
    const host = fakeHost({ '/home/u/.toolbox/bin/claude': { version: '2.1.197' } }, '/usr/bin:/home/u/.toolbox/bin');
    const result = await discoverBinary(CLAUDE, host.options({ PATH: '/usr/bin', SHELL: '/bin/zsh-login-test' }));
    expect(result.found && result.binary).toMatchObject({
      path: '/home/u/.toolbox/bin/claude',
      source: 'login_shell',
    });
    expect(host.runShell).toHaveBeenCalledWith(
      '/bin/zsh-login-test',
      ['-lc', expect.any(String)],
      expect.anything(),
      4000,
    );
  });

  it('searches known install folders, nvm newest first, and ~/.claude/local', async () => {
    const nvm = fakeHost({
      '/home/u/.nvm/versions/node/v18.20.0/bin/codex': { version: '0.1.0' },
      '/home/u/.nvm/versions/node/v22.3.0/bin/codex': { version: '0.169.0' },
    });
    const fromNvm = await discoverBinary(CODEX, nvm.options({ PATH: '/usr/bin', SHELL: '/bin/sh-nvm' }));
    expect(fromNvm.found && fromNvm.binary).toMatchObject({
      path: '/home/u/.nvm/versions/node/v22.3.0/bin/codex',
      source: 'known_location',
    });

    const local = fakeHost({ '/home/u/.claude/local/claude': { version: '2.1.197' } });
    const fromLocal = await discoverBinary(CLAUDE, local.options({ PATH: '/usr/bin', SHELL: '/bin/sh-local' }));
    expect(fromLocal.found && fromLocal.binary.path).toBe('/home/u/.claude/local/claude');

    const npm = fakeHost({ '/opt/node/bin/codex': { version: '0.169.0' } });
    const fromNpm = await discoverBinary(CODEX, npm.options({ PATH: '/usr/bin', SHELL: '/bin/sh-npm' }));
    expect(fromNpm.found && fromNpm.binary.path).toBe('/opt/node/bin/codex');
  });

  it("uses ChatGPT.app's bundled codex only after every user-installed candidate", async () => {
    const bundled = '/Applications/ChatGPT.app/Contents/Resources/codex';
    const both = fakeHost({ [bundled]: { version: '0.150.0' }, '/home/u/.bun/bin/codex': { version: '0.169.0' } });
    const mac = { platform: 'darwin' as const };
    const user = await discoverBinary(CODEX, both.options({ PATH: '/usr/bin', SHELL: '/bin/sh-mac1' }, mac));
    expect(user.found && user.binary.path).toBe('/home/u/.bun/bin/codex');
    expect(both.probed).not.toContain(bundled);

    const only = fakeHost({ [bundled]: { version: '0.150.0' } });
    const app = await discoverBinary(CODEX, only.options({ PATH: '/usr/bin', SHELL: '/bin/sh-mac2' }, mac));
    expect(app.found && app.binary).toMatchObject({ path: bundled, source: 'known_location' });
  });

  it('reports the first candidate as unhealthy when no probe answers', async () => {
    const host = fakeHost({
      '/usr/bin/claude': { fails: '`/usr/bin/claude --version` did not answer within 10000 ms' },
      '/home/u/.local/bin/claude': { fails: 'exited with code 127' },
    });
    const result = await discoverBinary(CLAUDE, host.options({ PATH: '/usr/bin', SHELL: '/bin/sh-hang' }));
    expect(result.found && result.binary.path).toBe('/usr/bin/claude');
    expect(result.probeError).toContain('did not answer within');
    const health = healthFromDiscovery(result);
    expect(health).toMatchObject({ status: 'unhealthy', message: expect.stringContaining('did not answer') });
  });

  it('probes one file once when PATH and a known folder lead to the same real file', async () => {
    const host = fakeHost({
      '/usr/local/bin/codex': { fails: 'exited with code 1', real: '/opt/codex/codex' },
      '/home/u/.local/bin/codex': { fails: 'exited with code 1', real: '/opt/codex/codex' },
    });
    await discoverBinary(CODEX, host.options({ PATH: '/usr/local/bin', SHELL: '/bin/sh-dedupe' }));
    expect(host.probed).toEqual(['/usr/local/bin/codex']);
  });

  it('not found lists what was searched and says what to do', async () => {
    const host = fakeHost({}, '/usr/bin:/snap/bin');
    const result = await discoverBinary(CLAUDE, host.options({ PATH: '/bin', SHELL: '/bin/sh-none' }));
    expect(result.found).toBe(false);
    if (result.found) return;
    expect(result.searched).toEqual(
      expect.arrayContaining([
        'PATH: /bin',
        'login shell PATH (/bin/sh-none): /snap/bin',
        'known location: /home/u/.local/bin',
        'known location: /home/u/.claude/local/claude',
      ]),
    );
    expect(result.hint).toContain('REINS_CLAUDE_CODE_BIN');
    expect(healthFromDiscovery(result).status).toBe('not_installed');
    await expect(
      locateBinary(CLAUDE, { PATH: '/bin', SHELL: '/bin/sh-none', HOME }, host.options({})),
    ).rejects.toSatisfy((error) => ReinsError.isInstance(error) && error.code === 'binary_not_found');
  });

  it('says why the login shell was not read', async () => {
    const host = fakeHost({});
    const result = await discoverBinary(CLAUDE, host.options({ PATH: '/bin', SHELL: '/bin/sh-broken' }));
    expect(!result.found && result.searched).toContainEqual(expect.stringContaining('bash: broken profile'));
  });

  it('on Windows searches PATHEXT names and runs the target of an npm .cmd shim', async () => {
    const shim = 'C:\\Users\\u\\AppData\\Roaming\\npm\\codex.cmd';
    const target = 'C:\\Users\\u\\AppData\\Roaming\\npm\\node_modules\\@openai\\codex\\bin\\codex.js';
    const host = fakeHost({
      [shim]: { text: '@ECHO off\r\nnode  "%~dp0\\node_modules\\@openai\\codex\\bin\\codex.js" %*\r\n' },
      [target]: { version: '0.169.0' },
    });
    const result = await discoverBinary(
      CODEX,
      host.options(
        { PATH: 'C:\\Windows;C:\\Users\\u\\AppData\\Roaming\\npm', PATHEXT: '.COM;.EXE;.BAT;.CMD' },
        { platform: 'win32', home: 'C:\\Users\\u' },
      ),
    );
    expect(result.found && result.binary).toMatchObject({ path: target, source: 'path', version: '0.169.0' });
    expect(result.candidates[0]?.shim).toBe(shim);
  });

  it('an explicit path skips the search (and REINS_DISABLE_HARNESS)', async () => {
    const host = fakeHost({ '/pinned/codex': { version: '0.169.0' } });
    const result = await discoverBinary(
      CODEX,
      host.options({ REINS_DISABLE_HARNESS: '1' }, { explicitPath: '/pinned/codex' }),
    );
    expect(result.found && result.binary).toMatchObject({ path: '/pinned/codex', source: 'explicit' });
  });
});
