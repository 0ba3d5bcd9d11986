// `reins daemon` as a subprocess (the built bin): it prints its url and daemon.json path (never the
// token), serves a client that drives the fake Codex app-server, and on SIGTERM closes every session
// so that no harness process survives, removes daemon.json and exits 0.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, DaemonInfoSchema } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningCli, runCli, startCli } from './cli.js';

const FAKE_CODEX = fileURLToPath(new URL('../../testkit/fakes/codex-app-server.mjs', import.meta.url));
const TRANSCRIPT = fileURLToPath(new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url));

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
}

function processes(): Proc[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(pid), state: fields[0] ?? '', ppid: Number(fields[1]), pgid: Number(fields[2]) }];
      } catch {
        return [];
      }
    });
}

/** Process groups of every descendant of `root` (the harness children of the daemon). */
function descendantGroups(root: number): Set<number> {
  const all = processes();
  const family = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const proc of all) {
      if (!family.has(proc.pid) && family.has(proc.ppid)) {
        family.add(proc.pid);
        grew = true;
      }
    }
  }
  family.delete(root);
  return new Set(all.filter((proc) => family.has(proc.pid)).map((proc) => proc.pgid));
}

const alive = (groups: Set<number>) => processes().filter((proc) => groups.has(proc.pgid) && proc.state !== 'Z');

let home: string;
let running: RunningCli | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-cli-daemon-'));
});

afterEach(async () => {
  if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
  running = undefined;
  await rm(home, { recursive: true, force: true });
});

describe('reins daemon', () => {
  it('prints help and refuses bad options with exit 2', async () => {
    const help = await runCli(['daemon', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--allow-origin <url>/);
    expect(help.stdout).toMatch(/daemon\.json/);
    const port = await runCli(['daemon', '--port', 'eighty'], { env: { ...process.env, REINS_HOME: home } });
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port must be a whole number/);
    const origin = await runCli(['daemon', '--allow-origin', 'http://a.example/app'], {
      env: { ...process.env, REINS_HOME: home },
    });
    expect(origin.code).toBe(2);
    expect(origin.stderr).toMatch(/is not an origin/);
  });

  it('serves a client, and on SIGTERM closes every session (no harness process left), removes daemon.json, exits 0', async () => {
    running = startCli(['daemon', '--port', '0'], { env: { ...process.env, REINS_HOME: home } });
    await running.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
    const url = /listening on (ws:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())?.[1];
    expect(url).toBeDefined();
    const infoPath = join(home, 'daemon.json');
    expect(running.stdout()).toContain(infoPath);
    expect((await stat(infoPath)).mode & 0o777).toBe(0o600);
    const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(infoPath, 'utf8')));
    expect(info).toMatchObject({ url, pid: running.child.pid, protocolVersion: 1 });

    const client = await connect({ url: info.url, token: info.token, WebSocket });
    const session = await client.createSession(
      'codex',
      { cwd: home },
      { binaryPath: FAKE_CODEX, baseEnv: { PATH: process.env.PATH ?? '', FAKE_CODEX_TRANSCRIPT: TRANSCRIPT } },
    );
    const events: ReinsEvent[] = [];
    const reading = (async () => {
      for await (const event of session.events) events.push(event);
    })();
    await session.send('Say hello.');
    const groups = descendantGroups(running.child.pid as number);
    expect(groups.size).toBeGreaterThan(0);
    expect(alive(groups).length).toBeGreaterThan(0);

    running.child.kill('SIGTERM');
    const result = await running.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Stopped\./);
    await reading;
    expect(events.at(-1)).toMatchObject({ type: 'session.closed' });
    expect((await client.closed).code).toBe('process_exited');
    expect(alive(groups)).toEqual([]);
    await expect(stat(infoPath)).rejects.toMatchObject({ code: 'ENOENT' });
    // The token is a secret: not on stdout, not in the logs.
    expect(result.stdout).not.toContain(info.token);
    expect(result.stderr).not.toContain(info.token);
    expect(result.stderr).toMatch(/"msg":"session created"/);
  });

  it('stops on SIGINT too: exit 0, daemon.json removed', async () => {
    running = startCli(['daemon'], { env: { ...process.env, REINS_HOME: home } });
    await running.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
    const infoPath = join(home, 'daemon.json');
    expect((await stat(infoPath)).isFile()).toBe(true);
    running.child.kill('SIGINT');
    const result = await running.done;
    expect(result.code).toBe(0);
    await expect(stat(infoPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
