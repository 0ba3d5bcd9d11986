// Harness processes die with their daemon. A real `reins daemon` (the built CLI) runs the testkit's
// fake Claude Code, whose tool leaves a `sleep 300` in the harness's process group; the daemon is
// SIGKILLed and, within 5 s, no process of that group is left (its child watcher ended them). When
// the watcher was killed too, the group outlives both, and the next daemon start reaps it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DaemonInfoSchema, type ReinsClient } from '@reins/client';
import {
  aliveInGroups,
  descendantsOf,
  isDaemonWatcher,
  isProcessAlive,
  type ProcessEntry,
  until,
} from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeFixture, client, EventReader, FAKE_CLAUDE, LOGGING_FAKE } from './helpers.js';

const REINS_BIN = fileURLToPath(new URL('../../cli/bin/reins.js', import.meta.url));
const BUILT_CLI = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));

let home: string;
const daemons: ChildProcess[] = [];
const clients: ReinsClient[] = [];
const toolPids: number[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-children-'));
  await mkdir(join(home, 'user'));
});
afterEach(async () => {
  for (const reins of clients.splice(0)) reins.close();
  for (const daemon of daemons.splice(0))
    if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
  for (const pid of toolPids.splice(0)) kill(pid);
  await rm(home, { recursive: true, force: true });
});

interface Proc extends ProcessEntry {
  /** The daemon's child watcher: its command line names it from its first instant. */
  watcher: boolean;
}

/** Descendants of `root`, by process. */
function descendants(root: number): Proc[] {
  return descendantsOf(root).map((proc) => ({ ...proc, watcher: isDaemonWatcher(proc.pid) }));
}

const aliveIn = aliveInGroups;

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

async function startReins(): Promise<{ daemon: ChildProcess; reins: ReinsClient }> {
  if (!existsSync(BUILT_CLI)) throw new Error(`The CLI is not built (${BUILT_CLI}): run npm run build first.`);
  const daemon = spawn(process.execPath, [REINS_BIN, 'daemon', '--log-level', 'warn'], {
    env: {
      PATH: process.env.PATH,
      REINS_HOME: join(home, 'reins'),
      HOME: join(home, 'user'),
      TMPDIR: join(home, 'user'),
      IS_SANDBOX: '1',
      REINS_CLAUDE_CODE_BIN: LOGGING_FAKE,
      FAKE_TARGET: FAKE_CLAUDE,
      FAKE_CLAUDE_FIXTURE: claudeFixture('text-turn'),
      FAKE_GRANDCHILD_PIDS: join(home, 'tools.pids'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemons.push(daemon);
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`reins daemon did not start: ${stdout}`)), 30_000);
    daemon.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Press Ctrl+C to stop')) {
        clearTimeout(timer);
        resolve();
      }
    });
    daemon.once('exit', (code) => reject(new Error(`reins daemon exited with ${code}: ${stdout}`)));
  });
  daemon.stderr?.resume();
  const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'reins', 'daemon.json'), 'utf8')));
  const reins = await client(info.url, info.token);
  clients.push(reins);
  return { daemon, reins };
}

/** A session that ran one turn: its tool's `sleep` is alive in the harness's group. */
async function sessionWithTool(reins: ReinsClient): Promise<number> {
  const session = await reins.createSession('claude-code', { cwd: home });
  const reader = new EventReader(session.events);
  const sent = await session.send('Say hello');
  await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === sent.turnId, 'the turn', 30_000);
  const tool = Number(readFileSync(join(home, 'tools.pids'), 'utf8').trim().split('\n').at(-1));
  toolPids.push(tool);
  return tool;
}

async function killed(daemon: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => daemon.once('exit', resolve));
  daemon.kill('SIGKILL');
  await exited;
  for (const reins of clients.splice(0)) reins.close();
}

describe('children die with their daemon', () => {
  it('a SIGKILLed daemon leaves no process of its harness groups behind within 5 s', async () => {
    const { daemon, reins } = await startReins();
    const tool = await sessionWithTool(reins);
    const family = descendants(daemon.pid as number);
    const groups = new Set(family.filter((proc) => !proc.watcher).map((proc) => proc.pgid));
    expect(groups.size).toBe(1);
    expect(aliveIn(groups).map((proc) => proc.pid)).toContain(tool);
    expect(family.filter((proc) => proc.watcher)).toHaveLength(1);

    await killed(daemon);
    await until(() => aliveIn(groups).length === 0, 'every process of the harness group to be gone', 5_000);
    // The watcher's work is done: it is gone too.
    const watcher = family.find((proc) => proc.watcher) as Proc;
    await until(() => !isProcessAlive(watcher.pid), 'the watcher to exit', 5_000);
  }, 90_000);

  it('when the watcher was killed too, the next start reaps what was left', async () => {
    const first = await startReins();
    const tool = await sessionWithTool(first.reins);
    const family = descendants(first.daemon.pid as number);
    const groups = new Set(family.filter((proc) => !proc.watcher).map((proc) => proc.pgid));
    for (const watcher of family.filter((proc) => proc.watcher)) kill(watcher.pid);
    await killed(first.daemon);
    // Nothing ends the group now: the fake's leader exits on stdin EOF, its tool lives on ...
    await until(
      () => ![...groups].some((leader) => aliveIn(new Set([leader])).some((p) => p.pid === leader)),
      'the leader to exit',
      10_000,
    );
    expect(aliveIn(groups).map((proc) => proc.pid)).toEqual([tool]);
    // ... until the next daemon starts.
    await startReins();
    await until(() => aliveIn(groups).length === 0, 'the left group to be reaped', 10_000);
  }, 90_000);
});
