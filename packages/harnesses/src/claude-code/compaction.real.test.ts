// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332): Session.compact() sends `/compact`, a turn of its own; the CLI's
// compact_boundary becomes ONE compaction item carrying the CLI's trigger and token numbers verbatim.
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: compaction', () => {
  test('/compact produces exactly one compaction item with the reported numbers', async () => {
    rig = await claudeRig('compact');
    rig.server.enqueue(reply().text('A first answer worth summarizing.').usage({ input: 3000, output: 40 }));
    rig.server.when(
      'summary',
      reply().text('<summary>The user said hello.</summary>').usage({ input: 3100, output: 30 }),
    );
    const { session, recorder } = await rig.open();
    // 2.1.197 answers "Not enough messages to compact." after a single exchange.
    for (const [index, text] of ['Hello there', 'Tell me more', 'And more'].entries()) {
      if (index > 0)
        rig.server.enqueue(
          reply()
            .text(`Answer number ${index + 1}.`)
            .usage({ input: 3000, output: 40 }),
        );
      const turn = await session.send(text);
      expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    }
    if (!session.compact) throw new Error('the Claude Code session has no compact()');
    const compact = await session.compact();
    const done = await recorder.terminalOf(compact, 0, 60_000);
    expect(done.outcome).toEqual({ status: 'completed' });
    const items = recorder
      .turnEvents(compact.turnId)
      .filter((event) => event.type === 'item.completed' && event.item.kind === 'compaction');
    expect(items).toHaveLength(1);
    const boundary = recorder.events.find((event) => event.native?.method === 'system/compact_boundary');
    const metadata = (
      boundary?.native?.frame as { compact_metadata?: { trigger: string; pre_tokens: number; post_tokens?: number } }
    )?.compact_metadata;
    expect(metadata?.trigger).toBe('manual');
    const item = items[0]?.type === 'item.completed' ? items[0].item : undefined;
    expect(item).toMatchObject({
      kind: 'compaction',
      status: 'completed',
      trigger: 'manual',
      preTokens: metadata?.pre_tokens,
    });
    if (metadata?.post_tokens !== undefined) expect(item).toMatchObject({ postTokens: metadata.post_tokens });
    else expect(item).not.toHaveProperty('postTokens');
    await recorder.close();
  });
});
