// `reins daemon` as a subprocess (the built bin), on the testkit's fake CLIs: it prints its url,
// daemon.json and store (never the token), serves a client, and on SIGTERM stops every harness
// process (no process left), removes daemon.json and exits 0. Restarts: three sessions with turns,
// then SIGTERM or SIGKILL, then a new daemon: all three are listed dormant with their lastSeq,
// each log replays from seq 0 exactly as clients saw it, and a send resumes the conversation
// (the fake is started with --resume=<id>) with the log going on at the next seq. After SIGKILL
// the daemon's child watcher ends the harnesses' groups, tool processes (a `sleep` each fake leaves
// in its process group) included: zero orphans (daemon/test/children-die.process.test.ts: the
// next start reaps what a killed watcher left). Logs are JSON lines at --log-level and
// carry neither the token nor any planted secret (environment, spec env, harness env, prompt).
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, DaemonInfoSchema, type ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { aliveInGroups, descendantsOf, fakeHarnessPath, isDaemonWatcher, isProcessAlive, until } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningCli, runCli, startCli } from './cli.js';

const FAKE_CODEX = fakeHarnessPath('codex');
const FAKE_CLAUDE = fakeHarnessPath('claude-code');
const LOGGING_FAKE = fileURLToPath(new URL('../../daemon/test/fixtures/logging-fake.mjs', import.meta.url));
const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);
const CLAUDE_FIXTURE = fileURLToPath(
  new URL('../../harnesses/src/claude-code/fixtures/text-turn.2.1.197.jsonl', import.meta.url),
);

/** Process groups of every descendant of `root` (the harness children of the daemon, not its watcher). */
function descendantGroups(root: number): Set<number> {
  return new Set(
    descendantsOf(root)
      .filter((proc) => !isDaemonWatcher(proc.pid))
      .map((proc) => proc.pgid),
  );
}

const aliveIn = aliveInGroups;
const isAlive = isProcessAlive;

let home: string;
let running: RunningCli | undefined;
const clients: ReinsClient[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-cli-daemon-'));
  await chmod(LOGGING_FAKE, 0o755);
});

afterEach(async () => {
  for (const reins of clients.splice(0)) reins.close();
  if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
  running = undefined;
  await rm(home, { recursive: true, force: true });
});

/** Starts `reins daemon` and connects a client to it. */
async function daemon(
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): Promise<{ cli: RunningCli; reins: ReinsClient; token: string; url: string }> {
  running = startCli(['daemon', ...args], { env });
  await running.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
  const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'reins', 'daemon.json'), 'utf8')));
  const reins = await connect({ url: info.url, token: info.token, WebSocket, requestTimeoutMs: 20_000 });
  clients.push(reins);
  return { cli: running, reins, token: info.token, url: info.url };
}

/** Reads events until `done` says stop (deadline). */
async function collect(
  events: AsyncIterable<ReinsEvent>,
  into: ReinsEvent[],
  done: (event: ReinsEvent) => boolean,
  timeoutMs = 15_000,
): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0)
      throw new Error(`no matching event within ${timeoutMs} ms; got ${into.map((e) => e.type).join(', ')}`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('event wait timed out')), left);
      }),
    ]);
    clearTimeout(timer);
    if (next.done) return;
    into.push(next.value);
    if (done(next.value)) return;
  }
}

function claudeEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    REINS_HOME: join(home, 'reins'),
    HOME: join(home, 'user'),
    TMPDIR: join(home, 'user'),
    IS_SANDBOX: '1',
    REINS_CLAUDE_CODE_BIN: LOGGING_FAKE,
    FAKE_TARGET: FAKE_CLAUDE,
    FAKE_CLAUDE_FIXTURE: CLAUDE_FIXTURE,
    FAKE_ARGV_LOG: join(home, 'argv.log'),
    FAKE_GRANDCHILD_PIDS: join(home, 'grandchildren.pids'),
  };
}

const grandchildren = async () =>
  (await readFile(join(home, 'grandchildren.pids'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => Number(line));

describe('reins daemon', () => {
  it('prints help and refuses bad options with exit 2', async () => {
    const help = await runCli(['daemon', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--allow-origin <url>/);
    expect(help.stdout).toMatch(/--idle-ttl <duration>/);
    expect(help.stdout).toMatch(/reins\.db/);
    const env = { ...process.env, REINS_HOME: home };
    for (const [args, message] of [
      [['--port', 'eighty'], /--port must be a whole number/],
      [['--allow-origin', 'http://a.example/app'], /is not an origin/],
      [['--idle-ttl', 'soon'], /--idle-ttl must be a duration like 90s, 30m or 2h/],
      [['--max-live-sessions', '0'], /--max-live-sessions must be a whole number of at least 1/],
      [['--log-level', 'loud'], /--log-level must be one of debug, info, warn, error, silent/],
    ] as const) {
      const result = await runCli(['daemon', ...args], { env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });

  it('refuses a group-writable REINS_HOME with the fix, exit 2', async () => {
    await chmod(home, 0o770);
    const result = await runCli(['daemon'], { env: { ...process.env, REINS_HOME: home } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/group-writable.*chmod go-w/);
  });

  it('serves a client, and on SIGTERM stops every harness process (none left), removes daemon.json, exits 0', async () => {
    const { cli, reins, token } = await daemon({ ...process.env, REINS_HOME: join(home, 'reins') });
    const url = /listening on (ws:\/\/127\.0\.0\.1:\d+)/.exec(cli.stdout())?.[1];
    const infoPath = join(home, 'reins', 'daemon.json');
    expect(cli.stdout()).toContain(infoPath);
    expect(cli.stdout()).toContain(join(home, 'reins', 'reins.db'));
    expect((await stat(infoPath)).mode & 0o777).toBe(0o600);
    const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(infoPath, 'utf8')));
    expect(info).toMatchObject({ url, pid: cli.child.pid, protocolVersion: 2 });

    const session = await reins.createSession(
      'codex',
      { cwd: home },
      { binaryPath: FAKE_CODEX, baseEnv: { PATH: process.env.PATH ?? '', FAKE_CODEX_TRANSCRIPT: TRANSCRIPT } },
    );
    const events: ReinsEvent[] = [];
    const reading = collect(session.events, events, () => false, 30_000).catch(() => {});
    await session.send('Say hello.');
    const groups = descendantGroups(cli.child.pid as number);
    expect(groups.size).toBeGreaterThan(0);
    expect(aliveIn(groups).length).toBeGreaterThan(0);

    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Stopped\./);
    await reading;
    // The session did not close: it is dormant in the store, and said so before the socket went.
    expect(events.at(-1)).toMatchObject({ type: 'notice', data: { dormant: 'shutdown' } });
    expect((await reins.closed).code).toBe('process_exited');
    expect(aliveIn(groups)).toEqual([]);
    await expect(stat(infoPath)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(result.stdout).not.toContain(token);
    expect(result.stderr).not.toContain(token);
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

describe.each(['SIGTERM', 'SIGKILL'] as const)('reins daemon restart after %s', (signal) => {
  it('three sessions come back dormant with their logs; a send resumes one; no process is left behind', async () => {
    await mkdir(join(home, 'user'));
    const env = claudeEnv();
    const first = await daemon(env);
    const seen = new Map<string, ReinsEvent[]>();
    const natives = new Map<string, string>();
    for (const prompt of ['Say hello', 'Say hi', 'Say hey']) {
      const session = await first.reins.createSession('claude-code', { cwd: home });
      const events: ReinsEvent[] = [];
      const sent = await session.send(prompt);
      await collect(session.events, events, (e) => e.type === 'turn.completed' && e.turnId === sent.turnId);
      seen.set(session.id, events);
      natives.set(session.id, session.nativeSessionId as string);
    }
    const tools = await grandchildren();
    expect(tools).toHaveLength(3);
    expect(tools.every(isAlive)).toBe(true);
    const groups = descendantGroups(first.cli.child.pid as number);
    expect(groups.size).toBe(3);

    first.cli.child.kill(signal);
    const stopped = await first.cli.done;
    if (signal === 'SIGTERM') {
      expect(stopped.code).toBe(0);
      // The groups are killed as the daemon exits; their deaths follow a few milliseconds later.
      await until(() => aliveIn(groups).length === 0, 'the killed groups to be gone', 15_000);
    } else {
      expect(stopped.signal).toBe('SIGKILL');
      // A daemon killed outright: its child watcher ends the harnesses' groups, tools included.
      await until(() => aliveIn(groups).length === 0, 'the watcher to end the groups', 15_000);
    }
    for (const reins of clients.splice(0)) reins.close();

    const second = await daemon(env);
    await until(() => aliveIn(groups).length === 0, 'the orphans to be reaped', 15_000);
    expect(tools.filter(isAlive)).toEqual([]);

    const listed = await second.reins.listSessions();
    expect(listed).toHaveLength(3);
    for (const listing of listed) {
      expect(listing).toMatchObject({ status: 'dormant', nativeSessionId: natives.get(listing.sessionId) });
      const before = seen.get(listing.sessionId) as ReinsEvent[];
      expect(listing.lastSeq).toBeGreaterThanOrEqual(before.length);
      const replay = await second.reins.attach(listing.sessionId, { afterSeq: 0 });
      const log: ReinsEvent[] = [];
      await collect(replay.events, log, (e) => e.seq === listing.lastSeq);
      await replay.detach();
      expect(log.slice(0, before.length)).toEqual(before);
    }

    const target = listed[0] as (typeof listed)[number];
    const session = await second.reins.attach(target.sessionId, { afterSeq: target.lastSeq });
    const after: ReinsEvent[] = [];
    const sent = await session.send('Say hello');
    await collect(session.events, after, (e) => e.type === 'turn.completed' && e.turnId === sent.turnId);
    expect(after[0]?.seq).toBe(target.lastSeq + 1);
    expect(after.at(-1)).toMatchObject({ type: 'turn.completed', outcome: { status: 'completed' } });
    const argv = (await readFile(join(home, 'argv.log'), 'utf8')).trim().split('\n').at(-1) as string;
    expect(JSON.parse(argv)).toContain(`--resume=${target.nativeSessionId}`);

    const resumedGroups = descendantGroups(second.cli.child.pid as number);
    second.cli.child.kill('SIGTERM');
    expect((await second.cli.done).code).toBe(0);
    await until(() => aliveIn(resumedGroups).length === 0, "the resumed session's groups to be gone", 15_000);
    const resumedTools = await grandchildren();
    await until(() => resumedTools.filter(isAlive).length === 0, 'the tool processes to be gone', 15_000);
  });
});

describe('reins daemon logs', () => {
  it('are JSON lines at --log-level and never carry the token or planted secrets', async () => {
    const planted = {
      daemonEnv: 'planted-daemon-env-5d1f',
      specEnv: 'planted-spec-env-77aa',
      harnessEnv: 'planted-harness-env-0c3e',
      prompt: 'planted-prompt-text-e9b2',
    };
    const { cli, reins, token, url } = await daemon(
      { ...process.env, REINS_HOME: join(home, 'reins'), PLANTED_SECRET: planted.daemonEnv },
      ['--log-level', 'debug'],
    );
    const session = await reins.createSession(
      'codex',
      { cwd: home, env: { API_KEY: planted.specEnv } },
      {
        binaryPath: FAKE_CODEX,
        baseEnv: { PATH: process.env.PATH ?? '', FAKE_CODEX_TRANSCRIPT: TRANSCRIPT, SECRET: planted.harnessEnv },
      },
    );
    const events: ReinsEvent[] = [];
    const sent = await session.send(`Say hello. ${planted.prompt}`);
    await collect(session.events, events, (e) => e.type === 'turn.completed' && e.turnId === sent.turnId);
    // A wrong token is logged too, without the token it carried.
    const wrong = await connect({ url, token: `${planted.prompt}-token`, WebSocket }).catch((error: unknown) => error);
    expect(wrong).toMatchObject({ code: 'auth_required' });
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(5);
    const parsed = lines.map((line) => JSON.parse(line) as { level: string; msg: string; time: number });
    expect(parsed.every((line) => typeof line.msg === 'string' && typeof line.time === 'number')).toBe(true);
    expect(parsed.some((line) => line.level === 'debug' && line.msg === 'request')).toBe(true);
    for (const secret of [token, ...Object.values(planted)]) expect(result.stderr).not.toContain(secret);
    expect(result.stdout).not.toContain(token);

    // At the default level there is no debug line, at warn no info line.
    const quiet = await daemon({ ...process.env, REINS_HOME: join(home, 'reins') }, ['--log-level', 'warn']);
    await quiet.reins.listSessions();
    quiet.cli.child.kill('SIGTERM');
    const quietResult = await quiet.cli.done;
    const levels = quietResult.stderr
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { level: string }).level);
    expect(levels.filter((level) => level === 'debug' || level === 'info')).toEqual([]);
  });
});
