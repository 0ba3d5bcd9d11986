// The pure location helpers: Windows shim resolution, PATHEXT names, npm's global bin, the login-shell PATH parse.
import { describe, expect, it } from 'vitest';
import {
  executableNames,
  type LocationContext,
  launchCommand,
  npmGlobalBin,
  readLoginShellPath,
  resolveWindowsShim,
} from './discovery-locations.js';

const SHIM_DIR = 'C:\\Users\\u\\AppData\\Roaming\\npm';

// The layout npm's cmd-shim (>= 4) writes for a JavaScript bin.
const MODERN_JS_SHIM = [
  '@ECHO off',
  'GOTO start',
  ':find_dp0',
  'SET dp0=%~dp0',
  'EXIT /b',
  ':start',
  'SETLOCAL',
  'CALL :find_dp0',
  '',
  'IF EXIST "%dp0%\\node.exe" (',
  '  SET "_prog=%dp0%\\node.exe"',
  ') ELSE (',
  '  SET "_prog=node"',
  '  SET PATHEXT=%PATHEXT:;.JS;=;%',
  ')',
  '',
  'endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\node_modules\\@openai\\codex\\bin\\codex.js" %*',
].join('\r\n');

describe('resolveWindowsShim', () => {
  it('finds the JavaScript target of a modern npm shim (run with node)', () => {
    expect(resolveWindowsShim(MODERN_JS_SHIM, `${SHIM_DIR}\\codex.cmd`)).toEqual({
      target: `${SHIM_DIR}\\node_modules\\@openai\\codex\\bin\\codex.js`,
      runner: 'node',
    });
  });

  it('finds the target of an older %~dp0 shim, past the node.exe in front of it', () => {
    const shim =
      '@IF EXIST "%~dp0\\node.exe" (\r\n  "%~dp0\\node.exe"  "%~dp0\\..\\lib\\node_modules\\qwen\\cli.js" %*\r\n)';
    expect(resolveWindowsShim(shim, 'C:\\tools\\bin\\qwen.cmd')).toEqual({
      target: 'C:\\tools\\lib\\node_modules\\qwen\\cli.js',
      runner: 'node',
    });
  });

  it('runs an .exe target directly', () => {
    const shim = MODERN_JS_SHIM.replace(
      '"%_prog%"  "%dp0%\\node_modules\\@openai\\codex\\bin\\codex.js"',
      '"%dp0%\\node_modules\\@anthropic-ai\\claude-code\\bin\\claude.exe"  ',
    );
    expect(resolveWindowsShim(shim, `${SHIM_DIR}\\claude.cmd`)).toEqual({
      target: `${SHIM_DIR}\\node_modules\\@anthropic-ai\\claude-code\\bin\\claude.exe`,
      runner: 'direct',
    });
  });

  it('gives up on a hand-written batch file', () => {
    expect(resolveWindowsShim('@echo off\r\ncall C:\\tools\\thing.bat %*\r\n', 'C:\\x\\codex.cmd')).toBeUndefined();
    expect(resolveWindowsShim('', 'C:\\x\\codex.cmd')).toBeUndefined();
  });
});

describe('executableNames and launchCommand', () => {
  it('adds PATHEXT extensions on Windows only', () => {
    expect(executableNames('codex', 'linux')).toEqual(['codex']);
    expect(executableNames('codex', 'win32', '.EXE;.CMD')).toEqual(['codex.exe', 'codex.cmd']);
    expect(executableNames('codex.exe', 'win32', '.EXE;.CMD')).toEqual(['codex.exe']);
  });

  it('runs a JavaScript target with node on Windows', () => {
    expect(launchCommand('C:\\x\\codex.js', 'win32', 'node')).toEqual({ command: 'node', args: ['C:\\x\\codex.js'] });
    expect(launchCommand('C:\\x\\codex.exe', 'win32')).toEqual({ command: 'C:\\x\\codex.exe', args: [] });
    expect(launchCommand('/usr/bin/codex.js', 'linux')).toEqual({ command: '/usr/bin/codex.js', args: [] });
  });
});

describe('npmGlobalBin', () => {
  const context = (env: Record<string, string>, npmrc?: string): LocationContext => ({
    platform: 'linux',
    home: '/home/u',
    env,
    execPath: '/opt/node-22/bin/node',
    listDir: async () => [],
    readText: async (path) => (path === '/home/u/.npmrc' ? npmrc : undefined),
  });

  it('prefers npm_config_prefix, then ~/.npmrc, then the prefix of node', async () => {
    expect(await npmGlobalBin(context({ npm_config_prefix: '/p' }, 'prefix=/q'))).toBe('/p/bin');
    expect(await npmGlobalBin(context({}, 'registry=x\nprefix = ~/.npm-packages\n'))).toBe('/home/u/.npm-packages/bin');
    expect(await npmGlobalBin(context({}))).toBe('/opt/node-22/bin');
  });
});

describe('readLoginShellPath', () => {
  it('reads PATH between the markers, ignoring what the profile printed', async () => {
    const result = await readLoginShellPath(
      { SHELL: '/bin/zsh' },
      {
        platform: 'darwin',
        timeoutMs: 100,
        runShell: async (_shell, args) => ({
          started: true,
          timedOut: false,
          code: 0,
          signal: null,
          stdout: `nvm: using node 22\n${args[1]?.includes("'__REINS_PATH_START__'") ? '__REINS_PATH_START__/a:/b__REINS_PATH_END__' : ''}`,
          stderr: '',
        }),
      },
    );
    expect(result).toEqual({ ok: true, shell: '/bin/zsh', path: '/a:/b' });
  });

  it('reports a shell that timed out, and a missing SHELL', async () => {
    const timedOut = await readLoginShellPath(
      { SHELL: '/bin/zsh' },
      {
        platform: 'linux',
        timeoutMs: 100,
        runShell: async () => ({
          started: true,
          timedOut: true,
          code: null,
          signal: 'SIGTERM',
          stdout: '',
          stderr: '',
          error: '`/bin/zsh -lc` did not answer within 100 ms',
        }),
      },
    );
    expect(timedOut).toMatchObject({ ok: false, error: expect.stringContaining('did not answer within 100 ms') });
    expect(await readLoginShellPath({}, { platform: 'linux', timeoutMs: 100 })).toEqual({
      ok: false,
      error: 'SHELL is not set',
    });
  });
});
