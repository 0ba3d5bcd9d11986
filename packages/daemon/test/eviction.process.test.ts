// Sleep and wake on the testkit's fake CLIs: an idle session's process is stopped after the TTL
// (it goes dormant, with a notice) and the next send resumes it (`--resume <id>`); over
// --max-live-sessions the least recently used idle one sleeps; a session with a running turn
// (fake Claude that never answers) or waiting on an approval (fake Codex replaying a recorded
// approval request) keeps its process, even past the TTL, while an idle witness beside it sleeps.
// No timing asserts: the tests wait (with deadlines) for what the daemon says.
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, type DaemonOptions, startDaemon } from '../src/index.js';
import { client, EventReader, fakeClaudeOptions, fakeCodexOptions, LOGGING_FAKE, silent } from './helpers.js';

let home: string;
let daemon: Daemon | undefined;
let reins: ReinsClient | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-evict-'));
  await mkdir(join(home, 'claude-home'));
  await chmod(LOGGING_FAKE, 0o755);
});
afterEach(async () => {
  reins?.close();
  reins = undefined;
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

async function start(options: DaemonOptions): Promise<ReinsClient> {
  daemon = await startDaemon({
    home: join(home, 'reins'),
    harnesses: ['claude-code', 'codex'],
    logger: silent,
    harnessOptions: {
      'claude-code': fakeClaudeOptions({ home: join(home, 'claude-home'), argvLog: join(home, 'argv.log') }),
    },
    ...options,
  });
  reins = await client(daemon.url, daemon.token);
  return reins;
}

const asleep = (reason: string) => (e: ReinsEvent) =>
  e.type === 'notice' && (e.data as { dormant?: string } | undefined)?.dormant === reason;
const terminalOf = (turnId: string) => (e: ReinsEvent) => e.type === 'turn.completed' && e.turnId === turnId;

async function statuses(target: ReinsClient): Promise<Record<string, string>> {
  return Object.fromEntries((await target.listSessions()).map((entry) => [entry.sessionId, entry.status]));
}

async function argvLines(): Promise<string[][]> {
  return (await readFile(join(home, 'argv.log'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as string[]);
}

describe('eviction on the fake CLIs', () => {
  it('by TTL: an idle session sleeps and wakes on send; a running turn and a pending approval keep their process', async () => {
    // Long enough that no session sleeps between its create and its first send on a loaded machine.
    const target = await start({ idleTtlMs: 1_500 });
    // A turn that never ends: the fake takes the message and never answers.
    const hanging = await target.createSession(
      'claude-code',
      { cwd: home },
      fakeClaudeOptions({ home: join(home, 'claude-home'), extra: { FAKE_CLAUDE_HANG: '1' } }),
    );
    const hangingTurn = await hanging.send('Never mind the time.');
    // A turn stopped at an approval request (Codex 0.169.0 recorded), waiting for the client.
    const asking = await target.createSession(
      'codex',
      { cwd: home, posture: 'ask' },
      fakeCodexOptions('approvals-accept'),
    );
    const askingReader = new EventReader(asking.events);
    await asking.send('Run the command.');
    await askingReader.waitFor((e) => e.type === 'permission.requested', 'the approval request');
    // The witness, used last: when it sleeps the other two were idle-by-the-clock for longer.
    const witness = await target.createSession('claude-code', { cwd: home });
    const witnessReader = new EventReader(witness.events);
    const first = await witness.send('Say hello');
    await witnessReader.waitFor(terminalOf(first.turnId), 'the witness turn');
    await witnessReader.waitFor(asleep('idle'), 'the witness put to sleep', 15_000);

    const now = await statuses(target);
    expect(now[witness.id]).toBe('dormant');
    expect(now[hanging.id]).toBe('running');
    expect(['running', 'requires_action']).toContain(now[asking.id]);
    expect(liveProcessCount()).toBe(2);

    // The dormant witness wakes on send: a new process resumes its conversation.
    const second = await witness.send('Say hello');
    await witnessReader.waitFor(terminalOf(second.turnId), 'the turn after waking');
    expect((await argvLines()).at(-1)).toContain(`--resume=${witness.nativeSessionId}`);
    expect(witnessReader.events.map((e) => e.seq)).toEqual(witnessReader.events.map((_, index) => index + 1));
    void hangingTurn;
  });

  it('by LRU: over --max-live-sessions the least recently used idle session sleeps first', async () => {
    const target = await start({ maxLiveSessions: 2, idleTtlMs: 0 });
    const readers: EventReader[] = [];
    const sessions = [];
    for (const prompt of ['Say hello', 'Say hi']) {
      const session = await target.createSession('claude-code', { cwd: home });
      const reader = new EventReader(session.events);
      const sent = await session.send(prompt);
      await reader.waitFor(terminalOf(sent.turnId), prompt);
      sessions.push(session);
      readers.push(reader);
    }
    expect(liveProcessCount()).toBe(2);
    const third = await target.createSession('claude-code', { cwd: home });
    await readers[0]?.waitFor(asleep('lru'), 'the oldest asleep');
    const [a, b] = sessions as [(typeof sessions)[number], (typeof sessions)[number]];
    expect(await statuses(target)).toEqual({ [a.id]: 'dormant', [b.id]: 'idle', [third.id]: 'idle' });

    // Using the dormant one wakes it; now b is the least recently used and makes room.
    const woke = await a.send('Say hello');
    await readers[0]?.waitFor(terminalOf(woke.turnId), 'the woken turn');
    await readers[1]?.waitFor(asleep('lru'), 'b asleep');
    expect(await statuses(target)).toEqual({ [a.id]: 'idle', [b.id]: 'dormant', [third.id]: 'idle' });
    expect(liveProcessCount()).toBe(2);
  });
});
