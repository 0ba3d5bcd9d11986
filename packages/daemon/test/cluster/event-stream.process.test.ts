// The events stream on a real nats-server: a republished message (same `<sessionId>:<seq>` id, as
// after a lost ack) is dropped, not doubled; a writer whose session was taken over is refused both
// when it writes after the newest message it knew and when it reuses an id another writer stored;
// a write of several events is one message; an event bigger than NATS's max payload goes in
// parts and reads back whole, and one whose writer died between parts is skipped for the next
// writer's; reads find any seq of interleaved sessions.
import { headers } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { PART_HEADER, SEQ_HEADER } from '../../src/cluster/codec.js';
import { EventStream, isFenced } from '../../src/cluster/event-stream.js';
import { EVENTS_STREAM, eventMessageId, eventSubject } from '../../src/cluster/layout.js';
import { type NatsCluster, openNats } from '../../src/cluster/nats.js';
import { type NatsServer, startNatsServer } from './nats-server.js';
import { silent } from './rig.js';

let server: NatsServer | undefined;
let nats: NatsCluster | undefined;
afterEach(async () => {
  await nats?.close();
  await server?.dispose();
  nats = undefined;
  server = undefined;
});

const entry = (sessionId: string, seq: number, text = '') => ({
  seq,
  json: JSON.stringify({ type: 'notice', seq, sessionId, text }),
});

async function messageCount(cluster: NatsCluster, sessionId: string): Promise<number> {
  const info = await cluster.jsm.streams.info(EVENTS_STREAM, { subjects_filter: eventSubject(sessionId) });
  return info.state.subjects?.[eventSubject(sessionId)] ?? 0;
}

async function open(): Promise<{ worker: EventStream; other: EventStream; cluster: NatsCluster }> {
  server = await startNatsServer();
  nats = await openNats([server.url], { name: 'test', log: silent });
  const stopped = () => false;
  return {
    cluster: nats,
    worker: new EventStream(nats, () => 'worker.w1.e1', silent, stopped),
    other: new EventStream(nats, () => 'gateway.g1.e1', silent, stopped),
  };
}

describe('events stream', () => {
  it('drops a republished message and refuses a writer that was taken over', async () => {
    const { worker, other, cluster } = await open();
    const sessionId = 'session-1';
    let after = 0;
    for (const seq of [1, 2, 3]) after = await worker.append(sessionId, [entry(sessionId, seq)], after);
    expect(await worker.tail(sessionId)).toMatchObject({ seq: 3, streamSeq: after, writer: 'worker.w1.e1' });

    // The same message again, as a retry after a lost ack: JetStream keeps one.
    const again = headers();
    again.set(SEQ_HEADER, '2');
    const ack = await cluster.js.publish(eventSubject(sessionId), entry(sessionId, 2).json, {
      msgID: eventMessageId(sessionId, 2),
      headers: again,
    });
    expect(ack.duplicate).toBe(true);
    expect(await messageCount(cluster, sessionId)).toBe(3);

    // Another member takes the session over and writes seq 4.
    const afterFour = await other.append(sessionId, [entry(sessionId, 4)], after);
    // The old writer still thinks seq 3 is the newest: refused, nothing doubled.
    await expect(worker.append(sessionId, [entry(sessionId, 4)], after)).rejects.toSatisfy(isFenced);
    // Or it reuses seq 4's message id: a copy of someone else's message is no success either.
    await expect(worker.append(sessionId, [entry(sessionId, 4)], afterFour)).rejects.toSatisfy(isFenced);
    expect(await messageCount(cluster, sessionId)).toBe(4);
    expect((await worker.read(sessionId, 0, 10)).map((event) => event.seq)).toEqual([1, 2, 3, 4]);
  });

  it('puts a write of several events in one message, a big event in parts, and reads any seq back', async () => {
    const { worker, cluster } = await open();
    const sessionId = 'session-2';
    let after = await worker.append(
      sessionId,
      [1, 2, 3, 4, 5].map((seq) => entry(sessionId, seq)),
      0,
    );
    expect(await messageCount(cluster, sessionId)).toBe(1);
    // 3 MiB: three or four parts at NATS's default 1 MiB max payload.
    const image = 'x'.repeat(3 * 1024 * 1024);
    after = await worker.append(sessionId, [entry(sessionId, 6, image), entry(sessionId, 7)], after);
    expect(await messageCount(cluster, sessionId)).toBeGreaterThanOrEqual(5);
    const all = await worker.read(sessionId, 0, 100);
    expect(all.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(JSON.parse(all[5]?.json ?? '{}').text).toBe(image);
    expect((await worker.read(sessionId, 3, 2)).map((event) => event.seq)).toEqual([4, 5]);
    expect((await worker.read(sessionId, 5, 1)).map((event) => event.seq)).toEqual([6]);
    expect(await worker.tail(sessionId)).toMatchObject({ seq: 7 });

    // A writer dies after the first part of seq 8; the next writer's seq 8 is the one read back.
    const part = headers();
    part.set(SEQ_HEADER, '8');
    part.set(PART_HEADER, '1/2');
    const partial = await cluster.js.publish(eventSubject(sessionId), 'half an event', {
      msgID: `${eventMessageId(sessionId, 8)}/1of2@dead`,
      headers: part,
      expect: { lastSubjectSequence: after },
    });
    expect(await worker.tail(sessionId)).toMatchObject({ seq: 7, streamSeq: partial.seq });
    await worker.append(sessionId, [entry(sessionId, 8, 'whole')], partial.seq);
    const eight = await worker.read(sessionId, 7, 10);
    expect(eight.map((event) => [event.seq, JSON.parse(event.json).text])).toEqual([[8, 'whole']]);
  });

  it('finds any page of interleaved sessions', async () => {
    const { worker } = await open();
    const ids = ['s-a', 's-b', 's-c'];
    const after = new Map(ids.map((id) => [id, 0]));
    for (let seq = 1; seq <= 300; seq++) {
      for (const id of ids) after.set(id, await worker.append(id, [entry(id, seq)], after.get(id) as number));
    }
    const page = await worker.read('s-b', 150, 100);
    expect(page.map((event) => event.seq)).toEqual(Array.from({ length: 100 }, (_, index) => 151 + index));
    expect(page.every((event) => JSON.parse(event.json).sessionId === 's-b')).toBe(true);
    expect((await worker.read('s-c', 297, 10)).map((event) => event.seq)).toEqual([298, 299, 300]);
    expect(await worker.read('s-a', 300, 10)).toEqual([]);
  });
});
