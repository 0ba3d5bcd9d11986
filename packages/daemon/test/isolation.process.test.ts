// A harness can only hurt its own session (docs/architecture/contract.md, principle 8), through the
// daemon: three Codex sessions on the fake app-server run turns at the same time; one of them receives
// the frames that used to crash the whole process (an unknown item type, an unknown thread status, an
// item/started without its item). That session goes on with passthroughs and warnings; the other two
// finish normally; the daemon keeps serving.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { ReinsEventSchema } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { streamViolations } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../src/index.js';
import { client, codexTranscript, fakeCodexOptions, silent } from './helpers.js';

let home: string;
let daemon: Daemon | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-isolation-'));
});

afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

/** The text-turn transcript with the poison frames right after the turn started. */
async function poisonedTranscript(): Promise<string> {
  const lines = (await readFile(codexTranscript('text-turn'), 'utf8')).split('\n').filter(Boolean);
  const at = lines.findIndex((line) => line.includes('"method":"turn/started"'));
  expect(at).toBeGreaterThan(0);
  const started = JSON.parse(lines[at] as string).frame.params as { threadId: string; turn: { id: string } };
  const poison = [
    {
      method: 'item/started',
      params: { threadId: started.threadId, turnId: started.turn.id, item: { type: 'futureItemKind', id: 'x' } },
    },
    { method: 'thread/status/changed', params: { threadId: started.threadId, status: { type: 'paused' } } },
    { method: 'item/started', params: { threadId: started.threadId, turnId: started.turn.id } },
  ].map((frame) => JSON.stringify({ dir: 'out', frame }));
  lines.splice(at + 1, 0, ...poison);
  const path = join(home, 'poisoned.jsonl');
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

async function runTurn(reins: Awaited<ReturnType<typeof client>>, transcript?: string) {
  const options = fakeCodexOptions('text-turn', transcript ? { FAKE_CODEX_TRANSCRIPT: transcript } : {});
  const session = await reins.createSession('codex', { cwd: home }, options);
  const events: ReinsEvent[] = [];
  const done = (async () => {
    for await (const event of session.events) {
      events.push(event);
      if (event.type === 'turn.completed') return event;
    }
    return undefined;
  })();
  await session.send('Say hello.');
  return { session, events, terminal: await done };
}

describe('one poisoned session through the daemon', () => {
  it('passes the bad frames through with warnings; the other sessions finish; the daemon keeps serving', async () => {
    daemon = await startDaemon({ home, harnesses: ['codex'], logger: silent });
    const reins = await client(daemon.url, daemon.token);
    const poisoned = await poisonedTranscript();
    const [bad, good1, good2] = await Promise.all([runTurn(reins, poisoned), runTurn(reins), runTurn(reins)]);

    for (const run of [good1, good2]) {
      expect(run.terminal).toMatchObject({ type: 'turn.completed', outcome: { status: 'completed' } });
      expect(run.events.filter((e) => e.type === 'notice' && e.kind === 'warning')).toEqual([]);
    }
    expect(bad.terminal).toMatchObject({ type: 'turn.completed', outcome: { status: 'completed' } });
    const unknown = bad.events.filter((e) => e.type === 'passthrough' && e.reason !== undefined);
    expect(unknown.length).toBeGreaterThanOrEqual(3);
    expect(bad.events.some((e) => e.type === 'notice' && e.kind === 'warning')).toBe(true);
    for (const run of [bad, good1, good2]) {
      expect(streamViolations(run.events)).toEqual([]);
      for (const event of run.events) expect(ReinsEventSchema.safeParse(event).success).toBe(true);
    }
    // The poisoned session is still usable, and the daemon still answers.
    const again = await bad.session.send('Still there?');
    expect(again.delivery).toBe('started');
    expect((await reins.listSessions()).length).toBeGreaterThanOrEqual(3);
    await reins.close();
  });
});
