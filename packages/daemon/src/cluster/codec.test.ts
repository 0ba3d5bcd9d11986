import { describe, expect, it } from 'vitest';
import { COUNT_HEADER, PART_HEADER, PartAssembler, pack, SEQ_HEADER, type Unpacked, unpack } from './codec.js';

const entries = (from: number, to: number, text = 'x') =>
  Array.from({ length: to - from + 1 }, (_, index) => ({
    seq: from + index,
    json: JSON.stringify({ seq: from + index, text }),
  }));

/** What a reader sees of an outgoing message: its headers and data, unpacked. */
function roundTrip(message: ReturnType<typeof pack>[number]): Unpacked | undefined {
  const values: Record<string, string> = { [SEQ_HEADER]: String(message.seq) };
  if (message.count > 1) values[COUNT_HEADER] = String(message.count);
  if (message.part) values[PART_HEADER] = `${message.part.index}/${message.part.of}`;
  return unpack({ get: (name) => values[name] ?? '' }, message.data);
}

describe('event messages', () => {
  it('puts consecutive events in one message up to the size limit, each message named by its first seq', () => {
    const messages = pack('s1', entries(1, 10), 80, 'w');
    expect(messages.map((message) => [message.msgId, message.count])).toEqual([
      ['s1:1', 3],
      ['s1:4', 3],
      ['s1:7', 3],
      ['s1:10', 1],
    ]);
    expect(messages.every((message) => message.data.length <= 80)).toBe(true);
    const back = messages.flatMap((message) => {
      const unpacked = roundTrip(message);
      return unpacked?.kind === 'events' ? unpacked.events : [];
    });
    expect(back).toEqual(entries(1, 10));
  });

  it('splits an event bigger than the limit into parts and puts it back together, multi-byte text included', () => {
    const big = { seq: 2, json: JSON.stringify({ seq: 2, text: 'héron 🐦 '.repeat(40) }) };
    const messages = pack('s1', [...entries(1, 1), big, ...entries(3, 3)], 64, 'w1.e1');
    expect(messages[1]?.msgId).toMatch(/^s1:2\/1of\d+@w1\.e1$/);
    const assembler = new PartAssembler();
    const out = messages.flatMap((message) => assembler.take(roundTrip(message) as Unpacked));
    expect(out).toEqual([...entries(1, 1), big, ...entries(3, 3)]);
  });

  it('drops an event whose parts stopped coming, and reads nothing it cannot trust', () => {
    const assembler = new PartAssembler();
    expect(assembler.take({ kind: 'part', seq: 5, index: 1, of: 2, bytes: new Uint8Array([1]) })).toEqual([]);
    expect(assembler.take({ kind: 'events', events: entries(5, 5) })).toEqual(entries(5, 5));
    expect(assembler.take({ kind: 'part', seq: 6, index: 2, of: 2, bytes: new Uint8Array([1]) })).toEqual([]);
    expect(unpack({ get: () => '' }, new Uint8Array())).toBeUndefined();
    expect(
      unpack(
        { get: (name) => (name === SEQ_HEADER ? '3' : name === COUNT_HEADER ? '2' : '') },
        new TextEncoder().encode('{}'),
      ),
    ).toBeUndefined();
  });
});
