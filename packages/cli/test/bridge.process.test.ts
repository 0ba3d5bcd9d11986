// `reins bridge`: bad usage exits 2 with a sentence on stderr and nothing on stdout (stdout is the
// protocol channel); --help goes to stdout.
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

async function usage(args: string[], message: RegExp) {
  const result = await runCli(args, { input: '' });
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).toBe('');
  return result;
}

describe('reins bridge usage', () => {
  it('prints its help', async () => {
    const result = await runCli(['bridge', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Usage: reins bridge acp -H <harness>/);
    expect(result.stdout).toMatch(/--posture/);
  });

  it('is listed in the main help', async () => {
    const result = await runCli(['--help']);
    expect(result.stdout).toMatch(/bridge\s+speak ACP/);
  });

  it('needs a protocol it knows', async () => {
    await usage(['bridge'], /Choose the protocol to speak/);
    await usage(['bridge', 'mcp', '-H', 'codex'], /Unknown bridge protocol "mcp"[\s\S]*Protocols: acp/);
  });

  it('needs a known harness', async () => {
    await usage(['bridge', 'acp'], /Choose a harness with -H/);
    await usage(
      ['bridge', 'acp', '-H', 'cursor'],
      /Unknown harness "cursor"[\s\S]*Known harnesses: claude-code, codex/,
    );
  });

  it('checks effort, posture, timeout and unknown flags', async () => {
    await usage(['bridge', 'acp', '-H', 'codex', '--effort', 'ultra'], /Unknown effort "ultra"/);
    await usage(['bridge', 'acp', '-H', 'codex', '--posture', 'yolo'], /Unknown posture "yolo"/);
    await usage(['bridge', 'acp', '-H', 'codex', '--request-timeout', 'soon'], /--request-timeout takes a positive/);
    await usage(['bridge', 'acp', '-H', 'codex', '--colour'], /Unknown option '--colour'/);
  });

  it('says which binary is missing before it speaks any protocol', async () => {
    await usage(
      ['bridge', 'acp', '-H', 'codex', '--binary', '/nonexistent/codex'],
      /\/nonexistent\/codex[\s\S]*REINS_CODEX_BIN/,
    );
  });
});
