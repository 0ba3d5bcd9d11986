// The events stream on a real nats-server: a republished event (same `<sessionId>:<seq>` message
// id, as after a lost ack) is dropped, not doubled; a writer whose session was taken over is
// refused both when it writes after the newest event it knew and when it reuses a seq another
// writer stored; reads find any seq of interleaved sessions.
import { headers } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStream, isFenced } from '../../src/cluster/event-stream.js';
import { EVENTS_STREAM, eventMessageId, eventSubject, SEQ_HEADER } from '../../src/cluster/layout.js';
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

const entry = (sessionId: string, seq: number) => ({ seq, json: JSON.stringify({ type: 'notice', seq, sessionId }) });

async function subjectCount(cluster: NatsCluster, sessionId: string): Promise<number> {
  const info = await cluster.jsm.streams.info(EVENTS_STREAM, { subjects_filter: eventSubject(sessionId) });
  return info.state.subjects?.[eventSubject(sessionId)] ?? 0;
}

describe('events stream', () => {
  it('drops a republished event, refuses a writer that was taken over, and reads any seq back', async () => {
    server = await startNatsServer();
    nats = await openNats([server.url], { name: 'test', log: silent });
    const stopped = () => false;
    const worker = new EventStream(nats, () => 'worker.w1.e1', silent, stopped);
    const other = new EventStream(nats, () => 'gateway.g1.e1', silent, stopped);

    const sessionId = 'session-1';
    const afterThree = await worker.append(
      sessionId,
      [1, 2, 3].map((seq) => entry(sessionId, seq)),
      0,
    );
    expect(await worker.tail(sessionId)).toMatchObject({ seq: 3, streamSeq: afterThree, writer: 'worker.w1.e1' });

    // The same event again, as a retry after a lost ack: JetStream keeps one.
    const again = headers();
    again.set(SEQ_HEADER, '2');
    const ack = await nats.js.publish(eventSubject(sessionId), entry(sessionId, 2).json, {
      msgID: eventMessageId(sessionId, 2),
      headers: again,
    });
    expect(ack.duplicate).toBe(true);
    expect(await subjectCount(nats, sessionId)).toBe(3);

    // Another member takes the session over and writes seq 4.
    const afterFour = await other.append(sessionId, [entry(sessionId, 4)], afterThree);
    // The old writer still thinks seq 3 is the newest: refused, nothing doubled.
    const late = worker.append(sessionId, [entry(sessionId, 4)], afterThree);
    await expect(late).rejects.toSatisfy(isFenced);
    // Or it reuses seq 4's message id: a copy of someone else's event is no success either.
    await expect(worker.append(sessionId, [entry(sessionId, 4)], afterFour)).rejects.toSatisfy(isFenced);
    expect(await subjectCount(nats, sessionId)).toBe(4);
    expect((await worker.read(sessionId, 0, 10)).map((event) => event.seq)).toEqual([1, 2, 3, 4]);

    // Three sessions interleaved: any page of any one is found.
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
