// A gateway's one feed of the events stream: an ordered consumer on every session's subject,
// starting where the stream ended when the gateway started (older events are read on demand). The
// client's ordered consumer recreates itself after a NATS restart or a missed message, going on
// from the last message it delivered, so the feed neither skips nor repeats; the mirrors drop
// copies and read back anything missing anyway (mirror.ts).

import type { ConsumerMessages } from '@nats-io/jetstream';
import { DeliverPolicy } from '@nats-io/jetstream';
import type { Logger } from '../logger.js';
import { PartAssembler } from './codec.js';
import { eventsOf, fromJs, type StoredEvent } from './event-stream.js';
import { EVENTS_STREAM, EVENTS_SUBJECTS, sessionOfSubject } from './layout.js';
import type { NatsCluster } from './nats.js';

export class EventFeed {
  private messages: ConsumerMessages | undefined;

  private constructor(private readonly log: Logger) {}

  static async start(
    nats: NatsCluster,
    log: Logger,
    /** A message's events (one write of the holder's), in order. */
    deliver: (sessionId: string, events: readonly StoredEvent[]) => void,
  ): Promise<EventFeed> {
    const feed = new EventFeed(log);
    const info = await nats.jsm.streams.info(EVENTS_STREAM);
    const consumer = await nats.js.consumers.get(EVENTS_STREAM, {
      filter_subjects: EVENTS_SUBJECTS,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: info.state.last_seq + 1,
    });
    // Short pulls: after a NATS restart the client looks for its consumer again after `expires`
    // (nats.js 3.4.0 backs off by that much; the 30 s default stalled the feed that long).
    const messages = await consumer.consume({ max_messages: 1_024, expires: 2_000 });
    feed.messages = messages;
    // Parts of a big event come one message after the other on its subject: put them together per session.
    const assemblers = new Map<string, PartAssembler>();
    void (async () => {
      for await (const message of messages) {
        const sessionId = sessionOfSubject(message.subject);
        const read = fromJs(message);
        if (sessionId === undefined || !read) continue;
        let assembler = assemblers.get(sessionId);
        if (read.unpacked.kind === 'part' && !assembler) {
          assembler = new PartAssembler();
          assemblers.set(sessionId, assembler);
        }
        const events = eventsOf([read], assembler);
        if (assembler && read.unpacked.kind === 'events') assemblers.delete(sessionId);
        try {
          if (events.length > 0) deliver(sessionId, events);
        } catch (error) {
          // One session's bad event must not stop every other session's feed.
          feed.log.error('could not take an event', { sessionId, error: (error as Error).message });
        }
      }
    })().catch((error: unknown) => feed.log.error('event feed ended', { error: (error as Error).message }));
    return feed;
  }

  stop(): void {
    void this.messages?.close();
  }
}
