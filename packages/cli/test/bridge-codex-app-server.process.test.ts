// `reins bridge codex-app-server`: the usage it takes (the form Codex clients launch `codex` with,
// --version for their discovery) and refuses, with exit 2 and nothing on stdout (the protocol channel);
// and its start-up: the Codex app-server it starts with itself takes the first thread, none is left.
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODEX_PROTOCOL_VERSION } from '@reins/bridges';
import { fakeHarnessPath } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { REINS_VERSION } from '../src/version.js';
import { runCli, startCli } from './cli.js';

const FAKE_CODEX = fakeHarnessPath('codex');
const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);

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
      ['bridge', 'codex-app-server', '-H', 'codex', '--listen', 'ws://0.0.0.0:4500'],
      /--listen: refusing to start non-loopback websocket listener 0\.0\.0\.0:4500 without auth/,
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
    // Ten CLI starts, each with the harness's discovery: seconds each on a loaded machine.
  }, 120_000);
});

describe('reins bridge codex-app-server -H codex start-up', () => {
  it('starts an app-server with itself before the client speaks, serves a turn, and leaves no process behind', async () => {
    const home = await mkdtemp(join(tmpdir(), 'reins-bridge-warm-'));
    try {
      // A launcher that notes every start of the fake app-server, then runs it.
      const log = join(home, 'starts.log');
      const launcher = join(home, 'codex');
      await writeFile(launcher, `#!/bin/sh\necho "$*" >> '${log}'\nexec "${process.execPath}" '${FAKE_CODEX}' "$@"\n`);
      await chmod(launcher, 0o755);
      const marker = `bridge-warm-${process.pid}-${Date.now()}`;
      const bridge = startCli(['bridge', 'codex-app-server', '-H', 'codex', '--binary', launcher, 'app-server'], {
        env: {
          PATH: process.env.PATH,
          HOME: home,
          REINS_HOME: join(home, 'reins'),
          FAKE_CODEX_TRANSCRIPT: TRANSCRIPT,
          BRIDGE_TEST_MARKER: marker,
        },
        cwd: home,
      });
      // Before the client says anything (so before the catalog probe its initialize triggers), the
      // bridge has started the app-server its first thread will take (codex/hosts.ts).
      await expect.poll(async () => startsOf(log), { timeout: 20_000 }).toEqual(['app-server --strict-config']);
      const write = (frame: unknown) => bridge.child.stdin?.write(`${JSON.stringify(frame)}\n`);
      write({ id: 1, method: 'initialize', params: { clientInfo: { name: 'test', version: '0' } } });
      await bridge.waitForOutput('"id":1');
      write({ method: 'initialized', params: {} });
      write({ id: 2, method: 'thread/start', params: { cwd: home } });
      await bridge.waitForOutput('"id":2');
      write({ id: 3, method: 'turn/start', params: { threadId: threadIdOf(bridge.stdout()), input: [textInput] } });
      await bridge.waitForOutput('"method":"turn/completed"');
      bridge.child.stdin?.end();
      const result = await bridge.done;
      expect(result.code).toBe(0);
      // Every app-server it started (the warm one, the catalog probe, a replacement) ended with it.
      expect(processesWith(marker)).toEqual([]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

const textInput = { type: 'text', text: 'Say hello.', text_elements: [] };

async function startsOf(log: string): Promise<string[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line.startsWith('app-server'));
}

function threadIdOf(stdout: string): string {
  for (const line of stdout.split('\n')) {
    if (!line.includes('"id":2')) continue;
    const frame = JSON.parse(line) as { result?: { thread?: { id?: string } } };
    if (frame.result?.thread?.id) return frame.result.thread.id;
  }
  throw new Error(`no thread/start answer in ${stdout}`);
}

/** Live processes whose environment carries the marker (the bridge's harness children). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'utf8').includes(`BRIDGE_TEST_MARKER=${marker}`)) {
        found.push(Number(name));
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}
