// Bad input gets a clear message and exit code 2, before any harness starts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-cli-'));
  await writeFile(join(dir, 'not-json.json'), '{ nope');
  await writeFile(join(dir, 'bad-schema.json'), JSON.stringify({ type: 'not-a-type' }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reins usage errors (exit 2)', () => {
  it('unknown harness lists the known ones', async () => {
    const result = await runCli(['run', '-H', 'cursor', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown harness "cursor"/);
    expect(result.stderr).toMatch(/Known harnesses: claude-code, codex, gemini/);
  });

  it('missing harness flag', async () => {
    const result = await runCli(['run', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Choose a harness with -H/);
  });

  it('empty prompt, from arguments and from stdin', async () => {
    const args = await runCli(['run', '-H', 'codex', '   ']);
    expect(args.code).toBe(2);
    expect(args.stderr).toMatch(/The prompt is empty/);
    const stdin = await runCli(['run', '-H', 'codex', '-'], { input: '\n' });
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toMatch(/The prompt is empty/);
  });

  it('unreadable, non-JSON and invalid schema files', async () => {
    const missing = await runCli(['run', '-H', 'codex', '--output-schema', join(dir, 'nope.json'), 'hi']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read the output schema file .*nope\.json: ENOENT/);
    const notJson = await runCli(['run', '-H', 'codex', '--output-schema', join(dir, 'not-json.json'), 'hi']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/is not JSON/);
    const invalid = await runCli(['run', '-H', 'codex', '--output-schema', join(dir, 'bad-schema.json'), 'hi']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/not a valid JSON Schema/);
  });

  it('a harness that is not installed says how doctor finds binaries and names the override', async () => {
    const result = await runCli(['run', '-H', 'codex', 'hi'], {
      env: { PATH: '/nonexistent', HOME: dir, SHELL: '/bin/false' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/codex/);
    expect(result.stderr).toMatch(/reins doctor/);
    expect(result.stderr).toMatch(/REINS_CODEX_BIN/);
  });

  it('an empty flag value is refused, not taken for the default', async () => {
    for (const flag of ['--model', '--resume', '--cwd', '--output-schema']) {
      const result = await runCli(['run', '-H', 'codex', flag, '', 'hi']);
      expect(result.code, flag).toBe(2);
      expect(result.stderr, flag).toContain(`reins run: ${flag} is empty.`);
    }
    const chat = await runCli(['chat', '-H', 'codex', '-m', ' ']);
    expect(chat.code).toBe(2);
    expect(chat.stderr).toContain('reins chat: --model is empty.');
  });

  it('unknown flags, efforts and postures', async () => {
    expect((await runCli(['run', '-H', 'codex', '--frobnicate', 'hi'])).code).toBe(2);
    const effort = await runCli(['run', '-H', 'codex', '--effort', 'ludicrous', 'hi']);
    expect(effort.code).toBe(2);
    expect(effort.stderr).toMatch(/Use one of: minimal, low, medium, high/);
    const posture = await runCli(['run', '-H', 'codex', '--posture', 'yolo', 'hi']);
    expect(posture.code).toBe(2);
    expect(posture.stderr).toMatch(/bypass, ask/);
  });

  it('unknown flags and missing values exit 2 with a short sentence in every command, no stack', async () => {
    for (const command of ['run', 'chat', 'demo', 'conformance', 'doctor', 'daemon', 'console']) {
      const unknown = await runCli([command, '--frobnicate']);
      expect(unknown.code, command).toBe(2);
      expect(unknown.stderr, command).toMatch(new RegExp(`^reins ${command}: Unknown option '--frobnicate'\\.\n`));
      expect(unknown.stderr, command).not.toMatch(/unexpected error|at parseArgs|To specify a positional/);
      expect(unknown.stderr, command).toMatch(new RegExp(`See \`reins ${command} --help\`\\.`));
    }
    const missing = await runCli(['conformance', '-H']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^reins conformance: Option '-H, --harness <value>' argument missing\.\n/);
    expect(missing.stderr).not.toMatch(/unexpected error/);
  });

  it('with --json an error is also one JSON line on stdout with a stable code and the exit code', async () => {
    const parse = (stdout: string) => {
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      return JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    };
    const harness = await runCli(['run', '-H', 'cursor', '--json', 'hi']);
    expect(harness.code).toBe(2);
    expect(parse(harness.stdout)).toMatchObject({
      type: 'cli.error',
      code: 'invalid_input',
      message: 'Unknown harness "cursor".',
      hint: expect.stringMatching(/^Known harnesses: claude-code, codex/),
      exitCode: 2,
    });
    expect(harness.stderr).toMatch(/Unknown harness "cursor"/); // people still read stderr
    const missing = await runCli(['run', '-H', 'codex', '--json', 'hi'], {
      env: { PATH: '/nonexistent', HOME: dir, SHELL: '/bin/false' },
    });
    expect(missing.code).toBe(2);
    expect(parse(missing.stdout)).toMatchObject({ type: 'cli.error', code: 'binary_not_found', exitCode: 2 });
    for (const argv of [
      ['doctor', '--json', '--frobnicate'],
      ['demo', '--json', '-H', 'cursor'],
      ['conformance', '--json', '-H'],
    ]) {
      const result = await runCli(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(parse(result.stdout), argv.join(' ')).toMatchObject({
        type: 'cli.error',
        code: 'invalid_input',
        exitCode: 2,
      });
    }
    // Without --json (or with it only as the prompt, after --) stdout stays empty.
    expect((await runCli(['run', '-H', 'cursor', 'hi'])).stdout).toBe('');
    expect((await runCli(['run', '-H', 'cursor', '--', '--json'])).stdout).toBe('');
  });

  it("reins help <command> prints that command's help", async () => {
    const help = await runCli(['help', 'run']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: reins run -H <harness>/);
  });

  it('unknown command, --help and --version', async () => {
    const unknown = await runCli(['frob']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frob"/);
    const inherited = await runCli(['constructor']);
    expect(inherited.code).toBe(2);
    expect(inherited.stderr).toMatch(/unknown command "constructor"/);
    const help = await runCli(['run', '--help']);
    expect(help.code).toBe(0);
    for (const id of ['claude-code', 'codex', 'hermes', 'amp', 'acp']) expect(help.stdout).toContain(id);
    expect(help.stdout).toMatch(/Exit codes: 0 completed, 1 failed, 2 bad usage, 130 cancelled/);
    expect(help.stdout).toMatch(/Examples:/);
    for (const command of ['chat', 'demo', 'doctor', 'conformance', 'daemon', 'console', 'bridge']) {
      const commandHelp = await runCli([command, '--help']);
      expect(commandHelp.code, command).toBe(0);
      expect(commandHelp.stdout, command).toMatch(/Usage: reins/);
      // Help fits a 110-column terminal, except the examples a user copies whole.
      const body = commandHelp.stdout.split('\nExample')[0] ?? '';
      for (const line of body.split('\n')) expect(line.length, `${command}: ${line}`).toBeLessThanOrEqual(110);
    }
    const version = await runCli(['--version']);
    expect(version.stdout).toMatch(/^reins \d+\.\d+\.\d+/);
  });
});
