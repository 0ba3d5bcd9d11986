// The resume that fails, through the daemon (docs/architecture/contract.md, principle 6), on the fake
// Claude Code that refuses a --resume of a conversation it has no file for ("No conversation found",
// as 2.1.197): a session created to resume a lost conversation with `fallback: 'new'` starts a new
// one and says so; after a daemon restart, its dormant resume of a conversation deleted meanwhile does
// the same (the permission holds for every resume of the session), and the log says so in order.
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, type DaemonOptions, startDaemon } from '../src/index.js';
import { client, EventReader, fakeClaudeOptions, LOGGING_FAKE, silent } from './helpers.js';

const LOST = '99999999-2222-4333-8444-555555555555';
let home: string;
let daemon: Daemon | undefined;
const clients: ReinsClient[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-resume-fallback-'));
  await mkdir(join(home, 'claude-home'));
  await mkdir(join(home, 'conversations'));
  await chmod(LOGGING_FAKE, 0o755);
});

afterEach(async () => {
  await stop();
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

async function start(options: DaemonOptions): Promise<ReinsClient> {
  daemon = await startDaemon({ home: join(home, 'reins'), harnesses: ['claude-code'], logger: silent, ...options });
  const reins = await client(daemon.url, daemon.token);
  clients.push(reins);
  return reins;
}

async function stop(): Promise<void> {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close();
  daemon = undefined;
}

const terminalOf = (turnId: string) => (e: ReinsEvent) => e.type === 'turn.completed' && e.turnId === turnId;
const fallbackNotice = (from: string) => (e: ReinsEvent) =>
  e.type === 'notice' && (e.data as { nativeSessionId?: string } | undefined)?.nativeSessionId === from;

describe('resume fallback through the daemon (fake Claude Code)', () => {
  it('a lost conversation at create and a deleted one at a dormant resume each start a new one that says so', async () => {
    const conversations = join(home, 'conversations');
    const options: DaemonOptions = {
      harnessOptions: {
        'claude-code': fakeClaudeOptions({
          home: join(home, 'claude-home'),
          extra: { FAKE_CLAUDE_CONVERSATIONS: conversations, FAKE_CLAUDE_RESUME_STRICT: '1' },
        }),
      },
    };
    const first = await start(options);
    const session = await first.createSession('claude-code', {
      cwd: home,
      resume: { nativeSessionId: LOST, fallback: 'new' },
    });
    const reader = new EventReader(session.events);
    expect(await reader.waitFor(fallbackNotice(LOST), 'the fallback notice')).toMatchObject({
      kind: 'warning',
      data: { fallback: 'new', nativeSessionId: LOST, reason: expect.stringMatching(/No conversation found/) },
    });
    const sent = await session.send('Say hello');
    await reader.waitFor(terminalOf(sent.turnId), 'the first turn');
    const fresh = session.nativeSessionId as string;
    expect(fresh).toBeTruthy();
    expect(fresh).not.toBe(LOST);
    await stop();

    // The conversation is gone by the time the dormant session resumes.
    await rm(join(conversations, `${fresh}.json`));
    const second = await start(options);
    const [listing] = await second.listSessions();
    expect(listing).toMatchObject({ sessionId: session.id, status: 'dormant', nativeSessionId: fresh });
    const resumed = await second.attach(session.id, { afterSeq: listing?.lastSeq ?? 0 });
    const log = new EventReader(resumed.events);
    const next = await resumed.send('Say hi');
    await log.waitFor(fallbackNotice(fresh), 'the dormant resume fallback notice');
    expect((await log.waitFor(terminalOf(next.turnId), 'the turn after the restart')) as ReinsEvent).toMatchObject({
      outcome: { status: 'completed' },
    });
    const notice = log.events.findIndex(fallbackNotice(fresh));
    const started = log.events.findIndex((e) => e.type === 'session.started');
    expect(started).toBeGreaterThanOrEqual(0);
    expect(notice).toBeGreaterThan(started);
  });
});
