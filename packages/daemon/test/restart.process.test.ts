// A daemon restart on the testkit's fake CLIs (recorded Claude Code 2.1.197 and Codex 0.169.0
// transcripts), with a real SQLite store: three sessions with a turn each; the daemon closes
// (every harness process ends); a new daemon on the same home lists all three dormant with their
// lastSeq, replays each log from seq 0 identical to what clients saw; a send on one starts the fake
// with `--resume <native id>` (the argv log shows it) and the log goes on at the next seq. A
// resume the harness refuses (Codex: no rollout for that thread) is resume_failed.
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import { ReinsError, type ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { streamViolations } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, type DaemonOptions, startDaemon } from '../src/index.js';
import { client, EventReader, fakeClaudeOptions, fakeCodexOptions, LOGGING_FAKE, silent } from './helpers.js';

let home: string;
let daemon: Daemon | undefined;
const clients: ReinsClient[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-restart-'));
  await mkdir(join(home, 'claude-home'));
  await chmod(LOGGING_FAKE, 0o755);
});
afterEach(async () => {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

async function start(options: DaemonOptions): Promise<Daemon> {
  daemon = await startDaemon({
    home: join(home, 'reins'),
    harnesses: ['claude-code', 'codex'],
    logger: silent,
    ...options,
  });
  return daemon;
}

async function stop(): Promise<void> {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close();
  daemon = undefined;
}

async function connected(target: Daemon): Promise<ReinsClient> {
  const reins = await client(target.url, target.token);
  clients.push(reins);
  return reins;
}

const terminalOf = (turnId: string) => (e: ReinsEvent) => e.type === 'turn.completed' && e.turnId === turnId;

async function readLog(reins: ReinsClient, sessionId: string, lastSeq: number): Promise<ReinsEvent[]> {
  const session = await reins.attach(sessionId, { afterSeq: 0 });
  const reader = new EventReader(session.events);
  await reader.waitFor((e) => e.seq === lastSeq, `seq ${lastSeq}`);
  await session.detach();
  return reader.events;
}

describe('restart on the fake CLIs', () => {
  it('Claude Code: three sessions come back dormant, replay identical, and a send resumes the conversation', async () => {
    const argvLog = join(home, 'argv.log');
    const options: DaemonOptions = {
      harnessOptions: { 'claude-code': fakeClaudeOptions({ home: join(home, 'claude-home'), argvLog }) },
    };
    const first = await start(options);
    const reins = await connected(first);
    const seen = new Map<string, ReinsEvent[]>();
    for (const prompt of ['Say hello', 'Say hi', 'Say hey']) {
      const session = await reins.createSession('claude-code', { cwd: home });
      const reader = new EventReader(session.events);
      const sent = await session.send(prompt);
      await reader.waitFor(terminalOf(sent.turnId), `the turn of "${prompt}"`);
      seen.set(session.id, reader.events);
    }
    await stop();
    expect(liveProcessCount()).toBe(0);

    const second = await start(options);
    const again = await connected(second);
    const listed = await again.listSessions();
    expect(listed.map((entry) => entry.status)).toEqual(['dormant', 'dormant', 'dormant']);
    for (const listing of listed) {
      const before = seen.get(listing.sessionId) as ReinsEvent[];
      expect(listing.lastSeq).toBeGreaterThanOrEqual((before.at(-1) as ReinsEvent).seq);
      const log = await readLog(again, listing.sessionId, listing.lastSeq);
      expect(log.map((e) => e.seq)).toEqual(log.map((_, index) => index + 1));
      // Everything a client had, byte for byte; after it only what the daemon said about stopping.
      expect(log.slice(0, before.length)).toEqual(before);
      expect(log.slice(before.length).map((e) => e.type)).toEqual(log.slice(before.length).map(() => 'notice'));
    }

    const target = listed[2] as (typeof listed)[number];
    const session = await again.attach(target.sessionId, { afterSeq: target.lastSeq });
    const reader = new EventReader(session.events);
    const starts = (await readFile(argvLog, 'utf8')).trim().split('\n').length;
    const sent = await session.send('Say hello');
    await reader.waitFor(terminalOf(sent.turnId), 'the resumed turn');
    const argv = (await readFile(argvLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string[]);
    expect(argv).toHaveLength(starts + 1);
    // The fake was started to resume exactly the stored conversation (the Agent SDK passes --resume=<id>).
    expect(argv.at(-1)).toContain(`--resume=${target.nativeSessionId}`);
    expect(argv.slice(0, starts).every((args) => !args.some((arg) => arg.startsWith('--resume')))).toBe(true);
    expect(reader.events[0]?.seq).toBe(target.lastSeq + 1);
    expect(reader.events.find((e) => e.type === 'notice')).toMatchObject({ data: { resumed: { generation: 1 } } });
    expect(reader.events.find((e) => e.type === 'turn.completed')).toMatchObject({ outcome: { status: 'completed' } });
    expect(session.nativeSessionId).toBe(target.nativeSessionId);
    const whole = await readLog(await connected(second), target.sessionId, session.lastSeq);
    expect(streamViolations(whole, { settled: true })).toEqual([]);
  });

  it('Codex: a resume the harness refuses is resume_failed (the session stays dormant, the error is logged)', async () => {
    const first = await start({ harnessOptions: { codex: fakeCodexOptions('text-turn') } });
    const created = await (await connected(first)).createSession('codex', { cwd: home });
    const reader = new EventReader(created.events);
    const sent = await created.send('Say hello.');
    await reader.waitFor(terminalOf(sent.turnId), 'the first turn');
    await stop();

    // This fake Codex has no rollout for any thread: thread/resume fails as 0.169.0 answers.
    const second = await start({ harnessOptions: { codex: fakeCodexOptions('resume-unknown') } });
    const reins = await connected(second);
    const session = await reins.attach(created.id, { afterSeq: 0 });
    const log = new EventReader(session.events);
    const error = await session.send('Again.').then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(ReinsError.isInstance(error) && error.code).toBe('resume_failed');
    expect((error as Error).message).toContain(created.nativeSessionId as string);
    await log.waitFor((e) => e.type === 'error' && e.code === 'resume_failed', 'the logged resume_failed');
    expect((await reins.listSessions())[0]).toMatchObject({ sessionId: created.id, status: 'dormant' });
  });
});
