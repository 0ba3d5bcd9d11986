// The Codex line reader: a long line nested deeper than the parse limit is not parsed (it would hold
// the event loop every session shares for seconds) but handed on as an unparsable stray with a
// marker; shallow lines, long or not, are parsed as before.
import { describe, expect, it } from 'vitest';
import { MAX_LINE_DEPTH } from '../runtime/json-depth.js';
import { codexPeer } from './connection.js';

function reader() {
  const strays: Array<{ frame: unknown; reason: string | undefined }> = [];
  const notifications: unknown[] = [];
  const { receiveLine } = codexPeer(
    () => true,
    {
      onStray: (frame, _at, reason) => strays.push({ frame, reason }),
      onNotification: (frame) => notifications.push(frame),
    },
    1_000,
  );
  return { receiveLine, strays, notifications };
}

describe('codex line reader', () => {
  it('hands a long, absurdly deep line on as an unparsable marker without parsing it', () => {
    const { receiveLine, strays, notifications } = reader();
    const depth = 2_000_000;
    receiveLine(`{"method":"item/updated","params":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`);
    expect(notifications).toEqual([]);
    expect(strays).toHaveLength(1);
    expect(strays[0]?.reason).toBe('unparsable');
    expect(strays[0]?.frame).toMatchObject({ reinsTruncated: true });
    expect(JSON.stringify(strays[0]?.frame)).toContain(`deeper than ${MAX_LINE_DEPTH} levels`);
  });

  it('parses a long shallow line and a moderately deep one as before', () => {
    const { receiveLine, strays, notifications } = reader();
    const text = 'x'.repeat(100_000);
    receiveLine(JSON.stringify({ method: 'item/agentMessage/delta', params: { delta: text } }));
    const deep = `{"method":"item/updated","params":{"deep":${'['.repeat(300)}${']'.repeat(300)},"pad":"${text}"}}`;
    receiveLine(deep);
    expect(strays).toEqual([]);
    expect(notifications).toHaveLength(2);
  });
});
