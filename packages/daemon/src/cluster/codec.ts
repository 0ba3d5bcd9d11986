// How events are put in stream messages, and read back (pure). A writer sends what its session
// log handed it in one write: consecutive events share a message (their JSON texts, one per line),
// so a busy session costs one round trip per write, not per event; the message id is
// `<sessionId>:<seq of its first event>`. An event bigger than NATS takes in one message (its
// max_payload, 1 MiB by default; inline images are bigger) goes in parts, each with its own id
// (`<sessionId>:<seq>/<part>of<parts>@<writer>`: a writer that dies between parts leaves an
// unfinished event that readers skip, and the next writer's copy of that seq is no duplicate).
import { eventMessageId } from './layout.js';

export const SEQ_HEADER = 'Reins-Seq';
/** How many events a message holds (absent: one). */
export const COUNT_HEADER = 'Reins-Count';
/** `<part>/<parts>` of one event's JSON. */
export const PART_HEADER = 'Reins-Part';

export interface EventEntry {
  seq: number;
  json: string;
}

export interface Outgoing {
  msgId: string;
  /** Seq of its first event (the one event, for a part). */
  seq: number;
  count: number;
  part?: { index: number; of: number };
  data: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The messages that carry `entries`, each at most `maxBytes` of data. */
export function pack(sessionId: string, entries: readonly EventEntry[], maxBytes: number, writer: string): Outgoing[] {
  const out: Outgoing[] = [];
  let batch: { seq: number; bytes: Uint8Array }[] = [];
  let size = 0;
  const flush = () => {
    const first = batch[0];
    if (!first) return;
    const data = new Uint8Array(size - 1);
    let at = 0;
    for (const [index, entry] of batch.entries()) {
      if (index > 0) data[at++] = 0x0a;
      data.set(entry.bytes, at);
      at += entry.bytes.length;
    }
    out.push({ msgId: eventMessageId(sessionId, first.seq), seq: first.seq, count: batch.length, data });
    batch = [];
    size = 0;
  };
  for (const entry of entries) {
    const bytes = encoder.encode(entry.json);
    if (bytes.length > maxBytes) {
      flush();
      const of = Math.ceil(bytes.length / maxBytes);
      for (let index = 1; index <= of; index++) {
        out.push({
          msgId: `${eventMessageId(sessionId, entry.seq)}/${index}of${of}@${writer}`,
          seq: entry.seq,
          count: 1,
          part: { index, of },
          data: bytes.subarray((index - 1) * maxBytes, index * maxBytes),
        });
      }
      continue;
    }
    // `size` counts a separator after each event: the data would be size + bytes.length long.
    if (batch.length > 0 && size + bytes.length > maxBytes) flush();
    batch.push({ seq: entry.seq, bytes });
    size += bytes.length + 1;
  }
  flush();
  return out;
}

/** A stored message as read back: whole events, or one part of one event. */
export type Unpacked =
  | { kind: 'events'; events: EventEntry[] }
  | { kind: 'part'; seq: number; index: number; of: number; bytes: Uint8Array };

export function unpack(header: { get(name: string): string } | undefined, data: Uint8Array): Unpacked | undefined {
  const seq = Number(header?.get(SEQ_HEADER));
  if (!Number.isInteger(seq) || seq < 1) return undefined;
  const part = /^(\d+)\/(\d+)$/.exec(header?.get(PART_HEADER) ?? '');
  if (part) {
    const index = Number(part[1]);
    const of = Number(part[2]);
    return index >= 1 && index <= of ? { kind: 'part', seq, index, of, bytes: data } : undefined;
  }
  const count = header?.get(COUNT_HEADER) ? Number(header.get(COUNT_HEADER)) : 1;
  const lines = decoder.decode(data).split('\n');
  if (!Number.isInteger(count) || count < 1 || lines.length !== count) return undefined;
  return { kind: 'events', events: lines.map((json, index) => ({ seq: seq + index, json })) };
}

/** The highest seq a message has a hand in (for locating seqs by bisection). */
export function highestSeq(unpacked: Unpacked): number {
  return unpacked.kind === 'part' ? unpacked.seq : (unpacked.events.at(-1)?.seq ?? 0);
}

/**
 * Puts parts back together, message by message in stream order. An event whose parts stop
 * coming (its writer died between them) is dropped when anything else follows.
 */
export class PartAssembler {
  private seq: number | undefined;
  private chunks: Uint8Array[] = [];

  /** The whole events this message completes. */
  take(unpacked: Unpacked): EventEntry[] {
    if (unpacked.kind === 'events') {
      this.reset();
      return unpacked.events;
    }
    if (unpacked.index === 1) this.reset();
    if (unpacked.index !== this.chunks.length + 1 || (this.seq !== undefined && this.seq !== unpacked.seq)) {
      this.reset();
      return [];
    }
    this.seq = unpacked.seq;
    this.chunks.push(unpacked.bytes);
    if (unpacked.index < unpacked.of) return [];
    const length = this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const whole = new Uint8Array(length);
    let at = 0;
    for (const chunk of this.chunks) {
      whole.set(chunk, at);
      at += chunk.length;
    }
    this.reset();
    return [{ seq: unpacked.seq, json: decoder.decode(whole) }];
  }

  private reset(): void {
    this.seq = undefined;
    this.chunks = [];
  }
}
