// `reins bridge codex-app-server`: the usage it takes (the form Codex clients launch `codex` with,
// --version for their discovery) and refuses, with exit 2 and nothing on stdout (the protocol channel).
import { CODEX_PROTOCOL_VERSION } from '@reins/bridges';
import { describe, expect, it } from 'vitest';
import { REINS_VERSION } from '../src/version.js';
import { runCli } from './cli.js';

async function usage(args: string[], message: RegExp) {
  const result = await runCli(args, { input: '' });
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).toBe('');
  return result;
}

describe('reins bridge codex-app-server usage', () => {
  it('is in the help, beside acp', async () => {
    const result = await runCli(['bridge', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/reins bridge codex-app-server -H <harness>/);
    expect(result.stdout).toMatch(/--strict-config/);
  });

  it('prints a version that names the bridge, not a Codex release (Codex clients run `codex --version`)', async () => {
    const result = await runCli(['bridge', 'codex-app-server', '-H', 'claude-code', '--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `reins-bridge ${REINS_VERSION} (codex app-server protocol of Codex ${CODEX_PROTOCOL_VERSION})\n`,
    );
    expect(result.stdout).not.toMatch(/codex-cli/);
  });

  it('takes the `app-server --strict-config` a Codex client appends, and nothing else', async () => {
    // Accepted up to the harness check (the binary does not exist), so the usage error is about that.
    await usage(
      ['bridge', 'codex-app-server', '-H', 'codex', '--binary', '/nonexistent/codex', 'app-server', '--strict-config'],
      /\/nonexistent\/codex/,
    );
    await usage(['bridge', 'codex-app-server', '-H', 'codex', 'serve'], /takes no further arguments \(got "serve"\)/);
    await usage(['bridge', 'codex-app-server', '-H', 'codex', 'app-server', 'extra'], /got "extra"/);
  });

  it('keeps the acp bridge as it was: no codex-only flags there', async () => {
    await usage(['bridge', 'acp', '-H', 'codex', '--strict-config'], /Unknown option '--strict-config'/);
    await usage(['bridge', 'acp', '-H', 'codex', 'app-server'], /bridge acp takes no further arguments/);
  });

  it('checks the harness and the shared flags like acp', async () => {
    await usage(['bridge', 'codex-app-server'], /Choose a harness with -H/);
    await usage(['bridge', 'codex-app-server', '-H', 'cursor'], /Unknown harness "cursor"/);
    await usage(['bridge', 'codex-app-server', '-H', 'codex', '--posture', 'yolo'], /Unknown posture "yolo"/);
    await usage(['bridge', 'mcp', '-H', 'codex'], /Protocols: acp, codex-app-server/);
  });

  it('takes what Codex clients launch it with, and refuses with a sentence what it cannot serve', async () => {
    // Accepted up to the harness check (the binary does not exist), so the usage error is about that.
    await usage(
      [
        'bridge',
        'codex-app-server',
        '-H',
        'codex',
        '--binary',
        '/nonexistent/codex',
        'app-server',
        '--listen',
        'stdio://',
        '-c',
        'model="o3"',
        '--enable',
        'x',
      ],
      /\/nonexistent\/codex/,
    );
    await usage(
      ['bridge', 'codex-app-server', '-H', 'codex', '--binary', '/nonexistent/codex', '--stdio'],
      /\/nonexistent\/codex/,
    );
    await usage(
      ['bridge', 'codex-app-server', '-H', 'codex', '--listen', 'ws://127.0.0.1:4500'],
      /--listen: the Reins bridge serves the app-server protocol on stdio only/,
    );
    await usage(
      ['bridge', 'codex-app-server', '-H', 'codex', '-c', 'model_provider="azure"'],
      /-c model_provider: the Reins bridge cannot honour/,
    );
    await usage(['bridge', 'codex-app-server', '-H', 'codex', '-m', 'a', '-c', 'model=b'], /name two models/);
    await usage(['bridge', 'codex-app-server', '-H', 'codex', '--mode', 'tui'], /Unknown mode "tui"/);
    await usage(['bridge', 'codex-app-server', '-H', 'codex', '--resume', 'abc'], /--resume is for --mode blocks/);
    await usage(
      ['bridge', 'codex-app-server', '--mode', 'blocks', '-H', 'codex', '--posture', 'ask'],
      /no client to ask for approvals/,
    );
    await usage(['bridge', 'acp', '-H', 'codex', '--listen', 'stdio://'], /Unknown option '--listen'/);
  });
});
