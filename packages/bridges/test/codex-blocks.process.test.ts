// Process level: blocks mode (`reins bridge codex-app-server --mode blocks -H <harness>`) in front of
// the FAKE Claude Code and the FAKE Pi (recorded transcripts). NDJSON blocks in, and on stdout only
// App Server v2 notifications, each validated against the pinned Codex's JSON Schema; every turn
// keeps Centaur's invariants: a userMessage item started and completed, exactly one turn/completed,
// holding every item of the turn.
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeHarnessPath, until } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codexSchema } from './support/codex-schema.js';
import { HARNESS_FIXTURES, JsonLinesPeer, type Message, processesWithMarker, REINS } from './support/processes.js';

const FAKE_CLAUDE = fakeHarnessPath('claude-code');
const FAKE_PI = fakeHarnessPath('pi');

let workdir: string;
beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'reins-blocks-'));
  await chmod(FAKE_CLAUDE, 0o755);
  await chmod(FAKE_PI, 0o755);
  return () => rm(workdir, { recursive: true, force: true });
});

const peers: JsonLinesPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) {
    await peer.close();
    const schema = codexSchema();
    const broken = peer.frames().flatMap((frame) => {
      if (typeof frame.method !== 'string' || frame.id !== undefined)
        return [`not a notification: ${JSON.stringify(frame).slice(0, 200)}`];
      const { emittedAtMs: _stamp, ...notification } = frame;
      const errors = schema.notification(notification);
      return errors ? [`${frame.method}: ${errors}`] : [];
    });
    expect(broken).toEqual([]);
  }
});

type Target = 'claude-code' | 'pi';

function blocks(target: Target, fixture: string, extra: string[] = [], knobs: Record<string, string> = {}) {
  const marker = randomUUID();
  const binary = target === 'pi' ? FAKE_PI : FAKE_CLAUDE;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: workdir,
    TMPDIR: workdir,
    REINS_HOME: join(workdir, 'reins-home'),
    IS_SANDBOX: '1',
    REINS_BRIDGE_TEST_MARKER: marker,
    ...(target === 'pi'
      ? { FAKE_PI_TRANSCRIPT: join(HARNESS_FIXTURES, 'pi', 'fixtures', `${fixture}.0.73.1.jsonl`) }
      : { FAKE_CLAUDE_FIXTURE: join(HARNESS_FIXTURES, 'claude-code', 'fixtures', `${fixture}.2.1.197.jsonl`) }),
    ...knobs,
  };
  const peer = new JsonLinesPeer(
    process.execPath,
    [REINS, 'bridge', 'codex-app-server', '--mode', 'blocks', '-H', target, '--binary', binary, ...extra],
    env,
    {
      cwd: workdir,
    },
  );
  peers.push(peer);
  return { peer, marker };
}

const block = (value: Record<string, unknown>) => JSON.stringify(value);
const itemOf = (frame: Message | undefined) => (frame?.params?.item ?? {}) as { type?: string; id?: string };
const turnOf = (frame: Message | undefined) => (frame?.params?.turn ?? {}) as { id?: string };
const threadOf = (frame: Message | undefined) => (frame?.params?.thread ?? {}) as { id?: string };

/** The turns the bridge reported, each checked against Centaur's invariants. */
function turns(frames: Message[]) {
  const completed = frames.filter((frame) => frame.method === 'turn/completed');
  return completed.map((frame) => {
    const turn = frame.params?.turn as {
      id: string;
      status: string;
      itemsView: string;
      items: Record<string, unknown>[];
      error: { message: string } | null;
    };
    const ofTurn = frames.filter((other) => other.params?.turnId === turn.id);
    const userStarted = ofTurn.filter(
      (other) => other.method === 'item/started' && itemOf(other).type === 'userMessage',
    );
    const userCompleted = ofTurn.filter(
      (other) => other.method === 'item/completed' && itemOf(other).type === 'userMessage',
    );
    expect(userStarted.length).toBeGreaterThanOrEqual(1);
    expect(userCompleted).toHaveLength(userStarted.length);
    expect(completed.filter((other) => turnOf(other).id === turn.id)).toHaveLength(1);
    expect(turn.itemsView).toBe('full');
    // Every item the turn completed is in its turn/completed.
    const ids = new Set(turn.items.map((item) => item.id));
    for (const done of ofTurn.filter(
      (other) => other.method === 'item/completed' && other.params?.threadId === frame.params?.threadId,
    )) {
      expect(ids.has(itemOf(done).id)).toBe(true);
    }
    return turn;
  });
}

describe('blocks mode in front of the fake Claude Code', () => {
  it('runs two turns on one harness process, the second with an image sent in pieces, then ends at stdin EOF', async () => {
    const { peer, marker } = blocks('claude-code', 'model-switch');
    const image = Buffer.from('a tiny png, as far as the test is concerned').toString('base64');
    peer.write(block({ type: 'user', text: 'First question' }));
    const pieces = image.match(/.{1,16}/g) ?? [];
    for (const [index, data] of pieces.entries()) {
      peer.write(
        block({ type: 'attachment.chunk', id: 'img-1', index, total: pieces.length, data, mediaType: 'image/png' }),
      );
    }
    peer.write(
      block({
        type: 'user',
        content: [
          { type: 'text', text: 'What is in it?' },
          { type: 'image', attachmentId: 'img-1' },
        ],
      }),
    );
    expect(await peer.close()).toEqual({ code: 0, signal: null });
    const frames = peer.frames();
    expect(frames[0]?.method).toBe('thread/started');
    const done = turns(frames);
    expect(done.map((turn) => turn.status)).toEqual(['completed', 'completed']);
    const second = done[1]?.items[0] as { type: string; content: { type: string; url?: string }[] };
    expect(second.type).toBe('userMessage');
    expect(second.content).toEqual([
      { type: 'text', text: 'What is in it?', text_elements: [] },
      { type: 'image', url: `data:image/png;base64,${image}` },
    ]);
    expect(done.every((turn) => turn.items.some((item) => item.type === 'agentMessage'))).toBe(true);
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end', 15_000);
  });

  it('interrupts the running turn; the next block runs as its own turn', async () => {
    const { peer } = blocks('claude-code', 'text-turn', [], { FAKE_CLAUDE_SILENT_TURN: '1' });
    peer.write(block({ type: 'user', text: 'Count to a million' }));
    await peer.waitFor((frame) => frame.method === 'turn/started', 'the first turn');
    // Interrupt once the harness has the prompt: the silent turn's system/init (whose apiKeySource is
    // this warning) says so. An interrupt that overtakes the prompt inside the Agent SDK's input queue
    // stops nothing (the CLI is idle when it reads it), and the turn then runs on: a known race.
    await peer.waitFor((frame) => frame.method === 'warning', 'the harness taking the prompt');
    peer.write(block({ type: 'interrupt' }));
    await peer.waitFor((frame) => frame.method === 'turn/completed', 'the interrupted turn');
    peer.write(block({ type: 'user', text: 'Say hello' }));
    await peer.close();
    expect(turns(peer.frames()).map((turn) => turn.status)).toEqual(['interrupted', 'completed']);
  });

  it('fails the turn of a model the harness does not have with "unsupported model"', async () => {
    const { peer } = blocks('claude-code', 'model-unsupported');
    peer.write(block({ type: 'user', text: 'Hi', model: 'no-such-model' }));
    await peer.close();
    const [turn] = turns(peer.frames());
    expect(turn?.status).toBe('failed');
    expect(turn?.error?.message).toMatch(/unsupported model/i);
  });

  it('a block it cannot take is a warning, or a failed turn when it was a user block; it goes on', async () => {
    const { peer } = blocks('claude-code', 'text-turn');
    peer.write('not json');
    peer.write(block({ type: 'user', content: [{ type: 'image', attachmentId: 'never-sent' }] }));
    peer.write(block({ type: 'user', text: 'Hi', provider: 'openai' }));
    peer.write(block({ type: 'user', text: 'Say hello' }));
    await peer.close();
    const frames = peer.frames();
    expect(frames.filter((frame) => frame.method === 'warning').map((frame) => frame.params?.message)).toContain(
      'A block must be one JSON object per line; this line is not JSON.',
    );
    const done = turns(frames);
    expect(done.map((turn) => [turn.status, turn.error?.message ?? null])).toEqual([
      ['failed', 'No attachment never-sent; send its attachment.chunk blocks first.'],
      ['failed', 'provider "openai": the claude-code harness behind the bridge chooses its own provider.'],
      ['completed', null],
    ]);
  });

  it('resumes the thread in a new process: same thread id, the harness resumes natively', async () => {
    const first = blocks('claude-code', 'resume');
    first.peer.write(block({ type: 'user', text: 'Remember PINEAPPLE' }));
    await first.peer.close();
    const thread = threadOf(first.peer.frames()[0]).id;
    const second = blocks('claude-code', 'resume', ['--resume', thread as string], {
      FAKE_CLAUDE_ARGV_FILE: join(workdir, 'argv.json'),
    });
    second.peer.write(block({ type: 'user', text: 'Which word?' }));
    await second.peer.close();
    expect(threadOf(second.peer.frames()[0]).id).toBe(thread);
    const { readFile } = await import('node:fs/promises');
    const argv = JSON.parse(await readFile(join(workdir, 'argv.json'), 'utf8')) as string[];
    expect(argv).toContain(`--resume=${thread}`);
    expect(turns(second.peer.frames()).map((turn) => turn.status)).toEqual(['completed']);
  });
});

describe('blocks mode in front of the fake Pi', () => {
  it('runs a text turn with every item on its turn/completed', async () => {
    const { peer } = blocks('pi', 'text');
    peer.write(block({ type: 'user', text: 'Say hello' }));
    await peer.close();
    const [turn] = turns(peer.frames());
    expect(turn?.status).toBe('completed');
    expect(turn?.items.map((item) => item.type)).toContain('agentMessage');
  });
});
