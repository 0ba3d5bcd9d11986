// `reins console` as a subprocess (the built bin): with no daemon running for $REINS_HOME it
// starts one in the background and prints the console's link (the token after the "#", the folder
// new sessions start in); with one running it prints that one's link and starts nothing; a stale
// daemon.json (nothing listening) does not fool it. The link opens the console the daemon serves,
// and the daemon's log never carries the token.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DaemonInfoSchema } from '@reins/client';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

let home: string | undefined;
const started: number[] = [];

afterEach(async () => {
  // The daemons this test started, by their pid.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      continue;
    }
    for (let tries = 0; tries < 100; tries++) {
      try {
        process.kill(pid, 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      } catch {
        break;
      }
    }
  }
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

async function freshHome(): Promise<string> {
  home = await mkdtemp(join(tmpdir(), 'reins-console-cli-'));
  return join(home, 'reins');
}

function linkOf(stdout: string): URL {
  const match = /Reins console: (\S+)/.exec(stdout);
  if (!match?.[1]) throw new Error(`no link in: ${stdout}`);
  return new URL(match[1]);
}

describe('reins console', () => {
  it('refuses a --cwd that is not a folder (exit 2) before it starts a daemon', async () => {
    const reinsHome = await freshHome();
    const env = { ...process.env, REINS_HOME: reinsHome, DISPLAY: '', WAYLAND_DISPLAY: '' };
    const missing = await runCli(['console', '--no-open', '--cwd', 'no-such-folder'], {
      env,
      cwd: join(reinsHome, '..'),
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--cwd: the folder ${join(reinsHome, '..', 'no-such-folder')} does not exist.`);
    await writeFile(join(reinsHome, '..', 'a-file'), 'not a folder');
    const file = await runCli(['console', '--no-open', '--cwd', 'a-file'], { env, cwd: join(reinsHome, '..') });
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/--cwd: .*a-file is not a folder\./);
    expect(missing.stdout + file.stdout).not.toContain('Started a Reins daemon');
    await expect(readFile(join(reinsHome, 'daemon.json'))).rejects.toThrow(/ENOENT/);
  });

  it('starts a daemon when none runs, prints its console link, and reuses it the next time', async () => {
    const reinsHome = await freshHome();
    const env = { ...process.env, REINS_HOME: reinsHome, DISPLAY: '', WAYLAND_DISPLAY: '' };
    const repo = join(reinsHome, '..', 'my repo');
    await mkdir(repo);
    const first = await runCli(['console', '--no-open', '--cwd', 'my repo'], { env, cwd: join(reinsHome, '..') });
    expect(first.code, first.stderr).toBe(0);
    const startedLine = /Started a Reins daemon \(pid (\d+)\); its logs: (\S+)/.exec(first.stdout);
    expect(startedLine).not.toBeNull();
    started.push(Number(startedLine?.[1]));
    const info = DaemonInfoSchema.parse(JSON.parse(await readFile(join(reinsHome, 'daemon.json'), 'utf8')));
    expect(info.pid).toBe(Number(startedLine?.[1]));

    const link = linkOf(first.stdout);
    expect(link.origin).toBe(`http://127.0.0.1:${new URL(info.url).port}`);
    expect(link.pathname).toBe('/');
    expect(link.search).toBe(''); // the token is in the fragment, never in the request line
    const fragment = new URLSearchParams(link.hash.slice(1));
    expect(fragment.get('token')).toBe(info.token);
    expect(fragment.get('cwd')).toBe(repo); // resolved where it was typed, not in the daemon's folder
    const page = await fetch(`${link.origin}/`);
    expect([200, 503]).toContain(page.status); // 503 when the console is not built: it says how
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");

    const second = await runCli(['console', '--no-open'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).not.toContain('Started');
    expect(new URLSearchParams(linkOf(second.stdout).hash.slice(1)).get('token')).toBe(info.token);

    const log = await readFile(startedLine?.[2] as string, 'utf8');
    expect(log).toContain('daemon listening');
    expect(log).not.toContain(info.token);
  });

  it('does not trust a stale daemon.json: nothing listens there, so it starts a daemon', async () => {
    const reinsHome = await freshHome();
    await mkdir(reinsHome, { recursive: true, mode: 0o700 });
    await writeFile(
      join(reinsHome, 'daemon.json'),
      JSON.stringify({ url: 'ws://127.0.0.1:9', pid: process.pid, token: 'stale', protocolVersion: 2, startedAt: 1 }),
      { mode: 0o600 },
    );
    const result = await runCli(['console', '--no-open'], { env: { ...process.env, REINS_HOME: reinsHome } });
    expect(result.code, result.stderr).toBe(0);
    const pid = /Started a Reins daemon \(pid (\d+)\)/.exec(result.stdout)?.[1];
    expect(pid).toBeDefined();
    started.push(Number(pid));
    expect(new URLSearchParams(linkOf(result.stdout).hash.slice(1)).get('token')).not.toBe('stale');
  });

  it('refuses options that do not go together, with exit 2', async () => {
    const result = await runCli(['console', '--port', '1234'], {
      env: { ...process.env, REINS_HOME: await freshHome() },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port goes with --demo');
    const help = await runCli(['console', '--help']);
    expect(help.stdout).toContain('reins console --demo');
  });
});
