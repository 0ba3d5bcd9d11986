// Real Codex (pinned), hermetic: Session.compact() is `thread/compact/start`, which Codex runs as a turn of
// its own on the scripted model; the turn shows one compaction item and the conversation goes on.
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

describe('codex real: compaction on request', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('compacts as a turn of its own with one compaction item, and the next turn runs', async () => {
    rig = await codexRig('compact');
    rig.server.enqueue(reply().text('A first answer worth summarizing.').usage({ input: 300, output: 9 }));
    const { session, recorder } = await rig.open();
    const first = await session.send('Remember the word tangerine.');
    expect((await recorder.terminalOf(first)).outcome).toEqual({ status: 'completed' });

    if (!session.compact) throw new Error('the Codex session has no compact()');
    const compact = await session.compact();
    expect(compact.delivery).toBe('started');
    const done = await recorder.terminalOf(compact, 0, 60_000);
    expect(done.outcome).toEqual({ status: 'completed' });
    const events = recorder.turnEvents(compact.turnId);
    const compactions = events.filter((event) => event.type === 'item.completed' && event.item.kind === 'compaction');
    expect(compactions).toHaveLength(1);
    const users = events.filter((event) => event.type === 'item.completed' && event.item.kind === 'user_message');
    expect(users.map((event) => event.type === 'item.completed' && event.item)).toEqual([
      expect.objectContaining({ text: '/compact', origin: 'synthetic' }),
    ]);
    // The model was asked for the summary (Codex's local compaction on a non-OpenAI provider).
    // The model was asked for the summary (Codex's local compaction prompt, model-server auxiliary.ts).
    expect(rig.server.requests.map((request) => request.auxiliary)).toContain('codex.compact');

    rig.server.enqueue(reply().text('After the compaction.'));
    const next = await session.send('Go on.');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    // The next request carries the summary in place of the conversation it replaced.
    const after = JSON.stringify(rig.server.requests.at(-1)?.body);
    expect(after).toContain('Scripted summary of the conversation so far.');
    expect(after).not.toContain('A first answer worth summarizing.');
    await recorder.close();
  });
});
