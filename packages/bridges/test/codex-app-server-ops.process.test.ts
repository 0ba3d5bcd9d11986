// Process level: the Codex methods beyond threads and turns, on `codex app-server --listen stdio://`
// through the two-line shim in front of the FAKE Claude Code (recorded 2.1.197 transcripts), spoken to
// in raw JSON lines: command/exec (buffered, streamed, stdin, terminate, per connection), thread/revert
// served (Claude Code takes its conversation back: the next turn is sent without the reverted one), thread/archive kept across
// bridge processes, /compact served on Session.compact (the recorded 2.1.197 /compact), and /review answered
// with a sentence and a stable code. Every frame
// is validated against the pinned Codex's JSON Schema.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transcriptViolations } from './support/codex-schema.js';
import { HARNESS_FIXTURES, JsonLinesPeer, type Message, writeCodexShim } from './support/processes.js';

const FAKE_CLAUDE = fakeHarnessPath('claude-code');
const fixture = (name: string) => join(HARNESS_FIXTURES, 'claude-code', 'fixtures', `${name}.2.1.197.jsonl`);

let workdir: string;
let shim: string;
beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'reins-codex-ops-'));
  await chmod(FAKE_CLAUDE, 0o755);
  shim = await writeCodexShim(workdir, FAKE_CLAUDE);
  return () => rm(workdir, { recursive: true, force: true });
});

const peers: JsonLinesPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) {
    await peer.close();
    expect(transcriptViolations(peer.sent, peer.frames())).toEqual([]);
  }
});

async function launched(transcript = 'text-turn', env: Record<string, string> = {}): Promise<JsonLinesPeer> {
  const peer = new JsonLinesPeer(
    shim,
    ['app-server', '--listen', 'stdio://'],
    {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: workdir,
      TMPDIR: workdir,
      REINS_HOME: join(workdir, 'reins-home'),
      IS_SANDBOX: '1',
      FAKE_CLAUDE_FIXTURE: fixture(transcript),
      REINS_BRIDGE_TEST_MARKER: randomUUID(),
      ...env,
    },
    { cwd: workdir },
  );
  peers.push(peer);
  await peer.request('initialize', { clientInfo: { name: 'ops', title: null, version: '1.0.0' }, capabilities: null });
  peer.notify('initialized');
  return peer;
}

const decoded = (frames: Message[], processId: string, stream: string) =>
  frames
    .filter(
      (frame) =>
        frame.method === 'command/exec/outputDelta' &&
        frame.params?.processId === processId &&
        frame.params?.stream === stream,
    )
    .map((frame) => Buffer.from(String(frame.params?.deltaBase64), 'base64').toString('utf8'))
    .join('');

describe('command/exec through the bridge', () => {
  it('runs an argv in the server cwd, buffered, with env overrides and the exit code', async () => {
    const peer = await launched();
    const answer = await peer.request('command/exec', {
      command: ['/bin/sh', '-c', 'echo "out:$PWD:$OPS_VALUE"; echo err >&2; exit 3'],
      env: { OPS_VALUE: 'forty-two' },
    });
    expect(answer.result).toEqual({ exitCode: 3, stdout: `out:${workdir}:forty-two\n`, stderr: 'err\n' });
    const capped = await peer.request('command/exec', {
      command: ['/bin/sh', '-c', 'printf 0123456789'],
      outputBytesCap: 4,
    });
    expect(capped.result).toMatchObject({ exitCode: 0, stdout: '0123' });
    const missing = await peer.request('command/exec', { command: ['/nonexistent/program'] });
    expect(missing.error).toMatchObject({ code: -32600, message: expect.stringContaining('failed to start') });
    const tty = await peer.request('command/exec', { command: ['sh'], tty: true, processId: 't' });
    expect(tty.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^tty: PTY mode is not supported/),
    });
  });

  it('streams output, takes stdin, and ends a command on terminate (its id is free again)', async () => {
    const peer = await launched();
    const cat = peer.request('command/exec', {
      command: ['/bin/sh', '-c', 'cat; echo done >&2'],
      processId: 'cat-1',
      streamStdin: true,
      streamStdoutStderr: true,
    });
    const write = await peer.request('command/exec/write', {
      processId: 'cat-1',
      deltaBase64: Buffer.from('hello stdin\n').toString('base64'),
    });
    expect(write.result).toEqual({});
    await peer.waitFor(() => decoded(peer.frames(), 'cat-1', 'stdout') === 'hello stdin\n', 'the echoed stdin');
    const duplicate = await peer.request('command/exec', { command: ['true'], processId: 'cat-1' });
    expect(duplicate.error).toMatchObject({ code: -32600, message: expect.stringContaining('duplicate') });
    await peer.request('command/exec/write', { processId: 'cat-1', closeStdin: true });
    // Streamed output is not repeated in the answer.
    expect((await cat).result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(decoded(peer.frames(), 'cat-1', 'stderr')).toBe('done\n');

    const sleeper = peer.request('command/exec', { command: ['sleep', '600'], processId: 'sleep-1' });
    const terminated = await peer.request('command/exec/terminate', { processId: 'sleep-1' });
    expect(terminated.result).toEqual({});
    expect((await sleeper).result).toMatchObject({ exitCode: 137 });
    const gone = await peer.request('command/exec/terminate', { processId: 'sleep-1' });
    expect(gone.error).toMatchObject({ code: -32600, message: 'no active command/exec for process id sleep-1' });
  });
});

describe('thread methods a harness may not honour', () => {
  it('serves thread/revert in front of Claude Code: the next turn is sent without the reverted one', async () => {
    // A git work tree (checkpoints), and the fake's log of what each turn would send its model.
    const repo = join(workdir, `repo-${randomUUID()}`);
    mkdirSync(repo);
    await writeFile(join(repo, 'kept.txt'), 'as it was\n');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@localhost', ...args], { cwd: repo });
    git('init', '-q');
    git('add', 'kept.txt');
    git('commit', '-qm', 'start');
    const conversations = await mkdtemp(join(workdir, 'conversations-'));
    const peer = await launched('text-turn', { FAKE_CLAUDE_CONVERSATIONS: conversations });
    const started = await peer.request('thread/start', { cwd: repo });
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    const say = async (text: string) => {
      const turn = await peer.request('turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }] });
      const turnId = (turn.result as { turn: { id: string } }).turn.id;
      await peer.waitFor(
        (frame) => frame.method === 'turn/completed' && (frame.params?.turn as { id?: string })?.id === turnId,
        'turn/completed',
      );
      return turnId;
    };
    const turnId = await say('Say hello, revert-marker');
    const reverted = await peer.request('thread/revert', { threadId, beforeTurnId: turnId });
    expect(reverted.error).toBeUndefined();
    await peer.waitFor((frame) => frame.method === 'thread/reverted', 'thread/reverted');
    expect(await readFile(join(repo, 'kept.txt'), 'utf8')).toBe('as it was\n');
    await say('Say hello again');
    const requests = (await readFile(join(conversations, 'requests.jsonl'), 'utf8')).trim().split('\n');
    expect(JSON.parse(requests.at(-1) as string).messages).toEqual(['Say hello again']);

    const review = await peer.request('review/start', { threadId, target: { type: 'uncommittedChanges' } });
    expect(review.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('Review mode (/review) is not available'),
      data: { code: 'unsupported_capability' },
    });
  });

  it('serves /compact as Codex shows it: {} then a turn with one contextCompaction item and no userMessage', async () => {
    const peer = await launched('compact');
    const started = await peer.request('thread/start', { cwd: workdir });
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    const turnEnded = (count: number) =>
      peer.waitFor(
        () => peer.frames().filter((frame) => frame.method === 'turn/completed').length >= count,
        `turn/completed #${count}`,
      );
    for (const [index, text] of ['Hello there', 'Tell me more', 'And more'].entries()) {
      await peer.request('turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }] });
      if (index === 0) {
        // A running turn: refused, as thread/revert is.
        const busy = await peer.request('thread/compact/start', { threadId });
        expect(busy.error).toMatchObject({ code: -32600, message: expect.stringContaining('a turn is running') });
      }
      await turnEnded(index + 1);
    }
    const before = peer.frames().length;
    const answer = await peer.request('thread/compact/start', { threadId });
    expect(answer.result).toEqual({});
    await turnEnded(4);
    const frames = peer.frames().slice(before);
    const compaction = frames.find((frame) => frame.method === 'turn/started')?.params?.turn as
      | { id: string }
      | undefined;
    const turnId = compaction?.id;
    expect(turnId).toBeDefined();
    const items = frames
      .filter((frame) => frame.method === 'item/completed' && frame.params?.turnId === turnId)
      .map((frame) => (frame.params?.item as { type?: string } | undefined)?.type);
    expect(items).toEqual(['contextCompaction']);
    const completed = frames.find((frame) => frame.method === 'turn/completed')?.params?.turn as { status: string };
    expect(completed.status).toBe('completed');
  });

  it('archives a thread: thread/list leaves it out in the next bridge process too, until unarchived', async () => {
    const first = await launched();
    const started = await first.request('thread/start', { cwd: workdir });
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    expect((await first.request('thread/archive', { threadId })).result).toEqual({});
    await first.waitFor(
      (frame) => frame.method === 'thread/archived' && frame.params?.threadId === threadId,
      'thread/archived',
    );
    await first.close();

    const next = await launched();
    const ids = async (archived: boolean) =>
      ((await next.request('thread/list', { archived, limit: 100 })).result as { data: { id: string }[] }).data.map(
        (thread) => thread.id,
      );
    // Reopened in a new process: the mark came from the records.
    expect((await next.request('thread/resume', { threadId })).error).toBeUndefined();
    expect(await ids(false)).not.toContain(threadId);
    expect(await ids(true)).toEqual([threadId]);
    const back = await next.request('thread/unarchive', { threadId });
    expect(back.result).toMatchObject({ thread: { id: threadId } });
    await next.waitFor((frame) => frame.method === 'thread/unarchived', 'thread/unarchived');
    expect(await ids(false)).toContain(threadId);
    expect(await ids(true)).toEqual([]);
  });
});
