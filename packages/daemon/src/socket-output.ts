// Frames out of one client connection (connection.ts): events as single frames, batches
// (event-batch.ts) or parts (event-parts.ts), every frame counted against the buffer cap so that a
// client that does not read is reported once as a slow consumer, the replay's back-pressure
// (backlogged, drained), and the frames of one tick written to the socket in one joined write.
import { SESSION_EVENT } from '@reins/protocol';
import type { WebSocket } from 'ws';
import { batchFrames } from './event-batch.js';
import { eventPartFrames, isBigEvent, shrunkEventFrame } from './event-parts.js';
import { withoutNative } from './published-event.js';
import type { PublishedEvent } from './session-log.js';

export const OPEN = 1;
/** Replay waits for the socket to take what it was given once this much is waiting. */
const REPLAY_LOW_WATER = 256 * 1024;
/**
 * The same for a client that takes batches: a replay page is one ~300 KB frame, so a few of them
 * may wait (the next page is read from the store while the socket takes the last), still far below
 * maxBufferedBytes.
 */
const BATCH_REPLAY_LOW_WATER = 1024 * 1024;

export class SocketOutput {
  /** Granted at initialize: replays go as session/events frames. */
  batches = false;
  /** Granted at initialize: a big event goes in session/eventPart frames. */
  parts = false;
  /** Granted at initialize: every event goes without its native frame (published-event.ts). */
  omitNative = false;
  /** The client was found not reading: nothing more is sent. */
  dropping = false;
  private sentFrames = 0;
  private writtenFrames = 0;
  private drainWaiters: Array<() => void> = [];
  /** The socket is corked until the end of this tick (corkForThisTick). */
  private corked = false;
  /** Whole WebSocket frames waiting for this tick's joined write (queue). */
  private queued: Buffer[] = [];
  private queuedBytes = 0;

  constructor(
    private readonly socket: WebSocket,
    /** More unsent bytes than this: the client is a slow consumer. */
    private readonly maxBufferedBytes: number,
    /** Called once, when a frame finds the socket over the cap. */
    private readonly slowConsumer: () => void,
  ) {}

  /** The socket closed: nobody waits for it to drain any more. */
  closed(): void {
    this.queued = [];
    this.queuedBytes = 0;
    for (const wake of this.drainWaiters.splice(0)) wake();
  }

  /** Closes the socket after the frames of this tick (a close frame must not overtake them). */
  close(code: number, reason: string): void {
    this.flush();
    this.socket.close(code, reason);
  }

  sendEvent(sessionId: string, event: PublishedEvent): boolean {
    const published = this.omitNative ? withoutNative(event) : event;
    if (isBigEvent(published)) return this.sendBigEvent(sessionId, published);
    return this.sendFrame(eventFrame(sessionId, published));
  }

  /**
   * An event too big for one frame: its parts, or shrunk for a client that takes no parts. Only the
   * first part is judged by the slow-consumer rule: an event is sent whole or not at all, so the
   * socket holds at most the cap plus the largest event.
   */
  private sendBigEvent(sessionId: string, published: PublishedEvent): boolean {
    if (!this.parts) return this.sendFrame(shrunkEventFrame(sessionId, published));
    const frames = eventPartFrames(sessionId, published);
    for (let index = 0; index < frames.length; index++) {
      if (!this.sendFrame(frames[index] as Buffer, index > 0)) return false;
    }
    return true;
  }

  sendEvents(sessionId: string, page: readonly PublishedEvent[]): boolean {
    let shared = knownRunFrames(sessionId, page, this.omitNative);
    const events = shared ? page : this.omitNative ? page.map(withoutNative) : page;
    if (!shared && !events.some((event) => isBigEvent(event))) {
      shared = sharedRunFrames(sessionId, page, this.omitNative, events);
    }
    if (shared) {
      for (const frame of shared) if (!this.sendFrame(frame)) return false;
      return true;
    }
    // Runs of ordinary events go in batches; a big event between them goes on its own.
    let start = 0;
    for (let index = 0; index <= events.length; index++) {
      const big = index < events.length && isBigEvent(events[index] as PublishedEvent);
      if (index < events.length && !big) continue;
      if (index > start) {
        for (const frame of batchFrames(sessionId, events.slice(start, index))) {
          if (!this.sendFrame(frame)) return false;
        }
      }
      if (big && !this.sendBigEvent(sessionId, events[index] as PublishedEvent)) return false;
      start = index + 1;
    }
    return true;
  }

  /** Whether the socket holds enough unsent that a replay should wait (drained) before sending more. */
  get backlogged(): boolean {
    return this.socket.readyState === OPEN && this.unsent >= this.lowWater;
  }

  /** Whether live events should wait in the log: half the cap is unsent (a burst of big events). */
  get congested(): boolean {
    return this.socket.readyState === OPEN && this.unsent >= this.maxBufferedBytes / 2;
  }

  /** Bytes given and not yet taken by the kernel: the socket's and ws's buffers, and this tick's queue. */
  private get unsent(): number {
    return this.socket.bufferedAmount + this.queuedBytes;
  }

  drained(): Promise<void> {
    if (this.socket.readyState !== OPEN || this.unsent < this.lowWater) return Promise.resolve();
    if (this.writtenFrames >= this.sentFrames) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private get lowWater(): number {
    return this.batches ? BATCH_REPLAY_LOW_WATER : REPLAY_LOW_WATER;
  }

  /**
   * Sends one text frame (a string, or its UTF-8 bytes made once for every subscriber) unless the
   * client is not reading: then the connection is dropped (1013).
   */
  sendFrame(frame: string | Buffer, continuesEvent = false): boolean {
    if (this.socket.readyState !== OPEN || this.dropping) return false;
    if (!continuesEvent && this.unsent > this.maxBufferedBytes) {
      this.dropping = true;
      this.slowConsumer();
      return false;
    }
    this.sentFrames++;
    // Frames already queued this tick mean the socket takes whole frames: nothing wrote to it since.
    if (this.queued.length > 0 || this.takesWholeFrames()) {
      this.queue(wireFrame(frame));
      return true;
    }
    this.flush();
    this.corkForThisTick();
    this.socket.send(frame, TEXT_FRAME, () => this.written(1));
    return true;
  }

  private written(frames: number): void {
    this.writtenFrames += frames;
    if (this.writtenFrames >= this.sentFrames || this.socket.bufferedAmount < this.lowWater) {
      for (const wake of this.drainWaiters.splice(0)) wake();
    }
  }

  /**
   * Whether frames can go to the TCP socket as bytes made here: ws 8.23.0 keeps it in `_socket`, and
   * its sender writes each frame at once unless it compresses (no extension is negotiated: the
   * daemon offers none) or waits on a Blob (the daemon sends none), which `_state` and `_queue` say.
   * A server's frames are not masked, so an event's frame is the same bytes for every client.
   */
  private takesWholeFrames(): boolean {
    const ws = this.socket as unknown as WsInternals;
    const sender = ws._sender;
    return (
      typeof ws._socket?.write === 'function' &&
      sender?._state === 0 &&
      sender._queue?.length === 0 &&
      (ws._extensions === undefined || Object.keys(ws._extensions).length === 0)
    );
  }

  /**
   * Queues a whole frame for this tick's one write: the frames of a store commit (often many
   * sessions' events) leave in one write instead of a ws.send and two socket writes each, which were
   * most of the daemon's CPU per event in the fan-out bench. The bytes and their order are unchanged;
   * a big tick goes out as it grows (what waits counts as unsent for the slow-consumer check).
   */
  private queue(frame: Buffer): void {
    this.queued.push(frame);
    this.queuedBytes += frame.length;
    if (this.queued.length === 1) process.nextTick(() => this.flush());
    if (this.queuedBytes >= CORK_FLUSH_BYTES) this.flush();
  }

  /** Writes what is queued, as one write (before anything else is written to the socket). */
  private flush(): void {
    const frames = this.queued;
    if (frames.length === 0) return;
    const joined = frames.length === 1 ? (frames[0] as Buffer) : joinedWrite(frames, this.queuedBytes);
    this.queued = [];
    this.queuedBytes = 0;
    const raw = (this.socket as unknown as WsInternals)._socket;
    if (this.socket.readyState !== OPEN || !raw) {
      this.written(frames.length);
      return;
    }
    raw.write(joined, () => this.written(frames.length));
  }

  /**
   * Holds the TCP socket's writes until the running tick's work is done, so that the frames of one
   * store commit (often many sessions' events) leave in one writev instead of one syscall each: in
   * the fan-out bench the per-frame writev was most of the daemon's CPU. The frames and their order
   * are unchanged. ws 8.23.0 keeps the net.Socket in `_socket`; without one this does nothing.
   */
  private corkForThisTick(): void {
    const raw = (this.socket as unknown as { _socket?: CorkableSocket })._socket;
    if (typeof raw?.cork !== 'function' || typeof raw.uncork !== 'function') return;
    if (this.corked) {
      // A big tick (a replay page of large events) goes out as it grows: what waits here counts
      // as unsent for the slow-consumer check, so it never holds more than this.
      if (raw.writableLength >= CORK_FLUSH_BYTES) {
        raw.uncork();
        raw.cork();
      }
      return;
    }
    raw.cork();
    this.corked = true;
    process.nextTick(() => {
      this.corked = false;
      raw.uncork();
    });
  }
}

const TEXT_FRAME = { binary: false } as const;
/** A corked socket writes what it holds once it holds this much. */
const CORK_FLUSH_BYTES = 64 * 1024;

interface CorkableSocket {
  cork?: () => void;
  uncork: () => void;
  writableLength: number;
}

/** What takesWholeFrames reads of a ws 8.23.0 WebSocket. */
interface WsInternals {
  _socket?: { write(chunk: Buffer, callback: () => void): boolean };
  _sender?: { _state?: number; _queue?: unknown[] };
  _extensions?: Record<string, unknown>;
}

/** Bytes of a text frame's head for `length` payload bytes. */
function frameHeadLength(length: number): number {
  return length < 126 ? 2 : length < 65_536 ? 4 : 10;
}

/** Writes the head of a FIN text frame of `length` payload bytes as a server sends it (RFC 6455 section 5.2: not masked) at the start of `frame`; its size. */
function writeFrameHead(frame: Buffer, length: number): number {
  frame[0] = 0x81;
  if (length < 126) {
    frame[1] = length;
    return 2;
  }
  if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
    return 4;
  }
  frame[1] = 127;
  frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
  frame.writeUInt32BE(length % 2 ** 32, 6);
  return 10;
}

/** A FIN text frame of `payload`. */
function textFrame(payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(frameHeadLength(payload.length) + payload.length);
  payload.copy(frame, writeFrameHead(frame, payload.length));
  return frame;
}

/**
 * This tick's joined writes by their first frame. Connections subscribed to the same sessions queue
 * the same event frames (the same Buffers, see wireFrame) in the same order, so the first of them
 * joins the bytes and the others write that one buffer: one copy per tick, not one per client (the
 * fan-out bench's 10 clients made 10 copies of every tick's bytes). A connection whose frames differ
 * (another subscription, a reply in between) joins its own. Forgotten after this tick's flushes.
 */
let joinsThisTick: Map<Buffer, { frames: readonly Buffer[]; joined: Buffer }> | undefined;

function joinedWrite(frames: readonly Buffer[], bytes: number): Buffer {
  const first = frames[0] as Buffer;
  const known = joinsThisTick?.get(first);
  if (known !== undefined && sameFrames(known.frames, frames)) return known.joined;
  const joined = Buffer.concat(frames, bytes);
  if (joinsThisTick === undefined) {
    joinsThisTick = new Map();
    // Every connection's flush of this tick is a nextTick callback queued before this microtask runs.
    queueMicrotask(() => {
      joinsThisTick = undefined;
    });
  }
  joinsThisTick.set(first, { frames, joined });
  return joined;
}

function sameFrames(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/**
 * A frame as a whole WebSocket frame: an event's (see eventFrame) and a live run's (sharedRunFrames) are
 * already one, made once for every subscriber; anything else (a reply, a replay batch, a part: made
 * per connection) is framed here.
 */
function wireFrame(frame: string | Buffer): Buffer {
  if (typeof frame === 'string') return textFrame(Buffer.from(frame));
  for (const known of recentFrames) if (known?.bytes === frame) return known.whole;
  return runWholeFrames.get(frame) ?? textFrame(frame);
}

/**
 * The session/events frames of the live run being handed on, made once for every connection that
 * takes batches (per form: whole, or without native frames). A published run goes to every
 * subscriber in one synchronous loop with the same array (session-log.ts), so only the newest run of
 * each form is kept. A run with an event too big for one frame is not shared: each connection sends
 * it in parts or shrunk, as it asked (sendEvents).
 */
const recentRuns: Array<{ run: readonly PublishedEvent[]; sessionId: string; omitNative: boolean; frames: Buffer[] }> =
  [];
/** Each shared run frame's payload, as handed out, to its whole WebSocket frame (see wireFrame). */
const runWholeFrames = new WeakMap<Buffer, Buffer>();

function knownRunFrames(sessionId: string, run: readonly PublishedEvent[], omitNative: boolean): Buffer[] | undefined {
  for (const known of recentRuns) {
    if (known.run === run && known.sessionId === sessionId && known.omitNative === omitNative) return known.frames;
  }
  return undefined;
}

/** The frames of `run` in the form `events` (the run itself, or without native frames), kept for the next connection. */
function sharedRunFrames(
  sessionId: string,
  run: readonly PublishedEvent[],
  omitNative: boolean,
  events: readonly PublishedEvent[],
): Buffer[] {
  const frames = batchFrames(sessionId, events);
  for (const payload of frames) runWholeFrames.set(payload, textFrame(payload));
  if (recentRuns.length >= 2) recentRuns.shift();
  recentRuns.push({ run, sessionId, omitNative, frames });
  return frames;
}

/**
 * The session/event frame of the event being handed on. A published event goes to every
 * subscriber in one synchronous loop (session-log.ts), so the frame is made once, as bytes, for
 * all of them (once per form: published-event.ts hands the same variant to every connection
 * that omits native frames): the message is encoded straight into its WebSocket frame (one buffer,
 * one UTF-8 encoding per event, not one per client), and the payload handed out is a view of it,
 * which wireFrame recognises. Only the newest two are kept (an event over EVENT_PART_CHARS never
 * comes here: it goes in parts or shrunk, per connection). The event's JSON itself was made once, when
 * it was stored (session-log.ts).
 */
const recentFrames: Array<{ published: PublishedEvent; sessionId: string; bytes: Buffer; whole: Buffer } | undefined> =
  [undefined, undefined];

function eventFrame(sessionId: string, published: PublishedEvent): Buffer {
  for (const known of recentFrames) {
    if (known?.published === published && known.sessionId === sessionId) return known.bytes;
  }
  const message = `{"jsonrpc":"2.0","method":"${SESSION_EVENT}","params":{"sessionId":${JSON.stringify(sessionId)},"event":${published.json}}}`;
  const length = Buffer.byteLength(message);
  const frame = Buffer.allocUnsafe(frameHeadLength(length) + length);
  const headLength = writeFrameHead(frame, length);
  frame.write(message, headLength);
  const bytes = frame.subarray(headLength);
  recentFrames[1] = recentFrames[0];
  recentFrames[0] = { published, sessionId, bytes, whole: frame };
  return bytes;
}
