// Real tier: blocks mode in front of the REAL pinned Claude Code and Pi on the scripted model server.
// Two turns (the second with an image sent in pieces), an interrupt, and a resume in a new process that
// continues natively (the model hears the earlier conversation). stdout is only App Server v2
// notifications, each validated against the pinned Codex's JSON Schema; every turn has its userMessage
// and exactly one turn/completed holding all of its items.
// Run: node packages/testkit/bin/hermetic.mjs -- npx vitest run --project real packages/bridges/test/codex-blocks.real.test.ts
import { reply, until } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { codexSchema } from './support/codex-schema.js';
import { JsonLinesPeer, type Message, REINS } from './support/processes.js';
import { type RealBridgeHome, realBridgeHome, scriptedRequests } from './support/real-bridge.js';

// A 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

type Turn = {
  id: string;
  status: string;
  items: { type: string; id: string; content?: { type: string }[] }[];
  itemsView: string;
};

function blocks(home: RealBridgeHome, extra: string[] = []): JsonLinesPeer {
  return new JsonLinesPeer(
    process.execPath,
    [
      REINS,
      'bridge',
      'codex-app-server',
      '--mode',
      'blocks',
      '-H',
      home.target,
      '--binary',
      home.binaryPath,
      '-m',
      home.model,
      ...extra,
    ],
    home.env,
    { cwd: home.cwd },
  );
}

/** Schema-valid notifications only, and the turns with Centaur's invariants checked. */
function checked(frames: Message[]): Turn[] {
  const schema = codexSchema();
  const broken = frames.flatMap((frame) => {
    if (typeof frame.method !== 'string' || frame.id !== undefined)
      return [`not a notification: ${JSON.stringify(frame).slice(0, 200)}`];
    const { emittedAtMs: _stamp, ...notification } = frame;
    const errors = schema.notification(notification);
    return errors ? [`${frame.method}: ${errors}`] : [];
  });
  expect(broken).toEqual([]);
  const turns = frames.filter((frame) => frame.method === 'turn/completed').map((frame) => frame.params?.turn as Turn);
  for (const turn of turns) {
    const ofTurn = frames.filter((frame) => frame.params?.turnId === turn.id);
    const user = (method: string) =>
      ofTurn.filter(
        (frame) => frame.method === method && ((frame.params?.item ?? {}) as { type?: string }).type === 'userMessage',
      );
    expect(user('item/started').length).toBeGreaterThanOrEqual(1);
    expect(user('item/completed')).toHaveLength(user('item/started').length);
    expect(turns.filter((other) => other.id === turn.id)).toHaveLength(1);
    expect(turn.itemsView).toBe('full');
    const ids = new Set(turn.items.map((item) => item.id));
    const completed = ofTurn.filter(
      (frame) => frame.method === 'item/completed' && !String(frame.params?.threadId).includes(':subagent:'),
    );
    for (const frame of completed) expect(ids.has(((frame.params?.item ?? {}) as { id: string }).id)).toBe(true);
  }
  return turns;
}

async function session(target: 'claude-code' | 'pi') {
  const home = await realBridgeHome(target);
  const { server } = home;
  try {
    const first = blocks(home);
    server.enqueue(reply().text('Noted: the word is PINEAPPLE.'));
    first.write(JSON.stringify({ type: 'user', text: 'Remember the word PINEAPPLE.' }));
    await first.waitFor((frame) => frame.method === 'turn/completed', 'the first turn', 120_000);
    // An image in pieces, then the turn that shows it.
    const data = PNG.toString('base64');
    const pieces = data.match(/.{1,24}/g) ?? [];
    for (const [index, piece] of pieces.entries()) {
      first.write(
        JSON.stringify({
          type: 'attachment.chunk',
          id: 'pixel',
          index,
          total: pieces.length,
          data: piece,
          mediaType: 'image/png',
        }),
      );
    }
    server.enqueue(reply().text('A single pixel.'));
    first.write(
      JSON.stringify({
        type: 'user',
        content: [
          { type: 'text', text: 'What is in this image?' },
          { type: 'image', attachmentId: 'pixel' },
        ],
      }),
    );
    await until(
      () => first.frames().filter((frame) => frame.method === 'turn/completed').length === 2,
      'the image turn',
      120_000,
    );
    // A turn that is interrupted.
    server.enqueue(reply().text('Counting: one, two').stall());
    const before = scriptedRequests(server);
    first.write(JSON.stringify({ type: 'user', text: 'Count to a million.' }));
    await until(() => scriptedRequests(server) > before, 'the stalled request', 120_000);
    first.write(JSON.stringify({ type: 'interrupt' }));
    await until(
      () => first.frames().filter((frame) => frame.method === 'turn/completed').length === 3,
      'the interrupted turn',
      120_000,
    );
    server.reset();
    expect(await first.close()).toEqual({ code: 0, signal: null });
    const turns = checked(first.frames());
    expect(turns.map((turn) => turn.status)).toEqual(['completed', 'completed', 'interrupted']);
    const image = turns[1]?.items.find((item) => item.type === 'userMessage');
    expect(image?.content?.map((part) => part.type)).toEqual(['text', 'image']);
    const threadId = ((first.frames()[0]?.params?.thread ?? {}) as { id: string }).id;

    // A new process continues the same conversation natively.
    const second = blocks(home, ['--resume', threadId]);
    server.enqueue(reply().text('The word was PINEAPPLE.'));
    const beforeResume = server.requests.length;
    second.write(JSON.stringify({ type: 'user', text: 'Which word did I ask you to remember?' }));
    expect(await second.close()).toEqual({ code: 0, signal: null });
    expect(((second.frames()[0]?.params?.thread ?? {}) as { id: string }).id).toBe(threadId);
    expect(checked(second.frames()).map((turn) => turn.status)).toEqual(['completed']);
    const resumedRequest = server.requests.slice(beforeResume).find((request) => request.scripted);
    expect(JSON.stringify(resumedRequest?.body)).toContain('PINEAPPLE');
  } finally {
    await home.dispose();
  }
}

describe('blocks mode in front of the real harnesses', () => {
  for (const target of ['claude-code', 'pi'] as const) {
    it(`two turns, a chunked image, an interrupt and a native resume behind ${target}`, () => session(target), 600_000);
  }
});
