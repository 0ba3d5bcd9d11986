// The connection to NATS (the official client, @nats-io/transport-node 3.4.0) and the layout a
// cluster member needs (layout.ts): the events stream and the three buckets are created when they
// are missing and used as they are when they exist (so an operator can create them first, with
// replicas). The client reconnects forever; what was sent while NATS was away is retried by the
// callers (at-least-once, duplicates dropped by message id). Also: which NATS errors mean "try
// again", which mean "someone else wrote first", and a retry loop with a bounded backoff.
import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import { connect, errors, type NatsConnection } from '@nats-io/transport-node';
import { ReinsError } from '@reins/core';
import type { Logger } from '../logger.js';
import {
  BUCKET_CONFIG,
  EVENTS_STREAM,
  EVENTS_SUBJECTS,
  eventsStreamConfig,
  MEMBERS_BUCKET,
  MEMBERS_MAX_AGE_MS,
  PROCESSES_BUCKET,
  SESSIONS_BUCKET,
} from './layout.js';
import { redactUrl } from './options.js';

export interface NatsCluster {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly sessions: KV;
  readonly members: KV;
  readonly processes: KV;
  /** The url(s) with passwords hidden, for messages. */
  readonly location: string;
  /** Drains the connection (pending publishes go out first). */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** The connection's name in NATS monitoring (`reins worker w1`). */
  name: string;
  log: Logger;
  /** Deadline of the first connection (ms, default 5 000). */
  connectTimeoutMs?: number;
}

export async function openNats(urls: string[], options: OpenOptions): Promise<NatsCluster> {
  const location = urls.map(redactUrl).join(',');
  const { servers, auth } = credentialsOf(urls);
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers,
      ...auth,
      name: options.name,
      timeout: options.connectTimeoutMs ?? 5_000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      // Pings find a dead TCP connection that the OS would keep for minutes.
      pingInterval: 10_000,
      maxPingOut: 3,
    });
  } catch (error) {
    throw new ReinsError(
      'invalid_input',
      `Cannot reach NATS at ${location}: ${(error as Error).message}. Is nats-server running there with JetStream on (nats-server -js)?`,
      { cause: error, data: { url: location } },
    );
  }
  void watchStatus(nc, options.log, location);
  try {
    // A request NATS lost while it was away waits this long before it is tried again.
    const jsm = await jetstreamManager(nc, { timeout: 5_000 });
    const js = jetstream(nc, { timeout: 5_000 });
    await ensureEventsStream(jsm);
    const kvm = new Kvm(js);
    const [sessions, members, processes] = await Promise.all([
      withRetryOnRace(() => kvm.create(SESSIONS_BUCKET, BUCKET_CONFIG)),
      withRetryOnRace(() => kvm.create(MEMBERS_BUCKET, { ...BUCKET_CONFIG, ttl: MEMBERS_MAX_AGE_MS })),
      withRetryOnRace(() => kvm.create(PROCESSES_BUCKET, BUCKET_CONFIG)),
    ]);
    return {
      nc,
      js,
      jsm,
      sessions,
      members,
      processes,
      location,
      close: async () => {
        if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
      },
    };
  } catch (error) {
    await nc.close().catch(() => {});
    if (ReinsError.isInstance(error)) throw error;
    throw new ReinsError(
      'invalid_input',
      `NATS at ${location} has no usable JetStream (${(error as Error).message}): start nats-server with JetStream on (nats-server -js -sd <dir>).`,
      { cause: error, data: { url: location } },
    );
  }
}

/**
 * nats.js 3.4.0 does not read credentials from server urls: `nats://user:password@host:port` (or
 * `nats://token@host:port`) becomes its user and pass (or token) options, the servers bare.
 */
export function credentialsOf(urls: string[]): {
  servers: string[];
  auth: { user?: string; pass?: string; token?: string };
} {
  let auth: { user?: string; pass?: string; token?: string } = {};
  const servers = urls.map((value) => {
    const url = new URL(value);
    if (url.username !== '' && Object.keys(auth).length === 0) {
      const user = decodeURIComponent(url.username);
      auth = url.password !== '' ? { user, pass: decodeURIComponent(url.password) } : { token: user };
    }
    return `${url.protocol}//${url.host}`;
  });
  return { servers, auth };
}

async function watchStatus(nc: NatsConnection, log: Logger, location: string): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === 'disconnect') log.warn('NATS connection lost; reconnecting', { url: location });
    else if (status.type === 'reconnect') log.info('NATS connection back', { url: location });
  }
}

/** Creates the events stream when it is missing; an existing one must take our subjects and direct gets. */
async function ensureEventsStream(jsm: JetStreamManager): Promise<void> {
  await withRetryOnRace(async () => {
    try {
      const info = await jsm.streams.info(EVENTS_STREAM);
      if (!info.config.subjects?.includes(EVENTS_SUBJECTS) || !info.config.allow_direct) {
        throw new ReinsError(
          'invalid_input',
          `The JetStream stream ${EVENTS_STREAM} exists but not as Reins needs it (subjects ${EVENTS_SUBJECTS}, allow_direct): fix or remove it (nats stream info ${EVENTS_STREAM}).`,
        );
      }
    } catch (error) {
      if (!(error instanceof JetStreamApiError) || error.code !== JetStreamApiCodes.StreamNotFound) throw error;
      await jsm.streams.add({ ...eventsStreamConfig(), name: EVENTS_STREAM });
    }
  });
}

/** Two members starting at once may both create a stream: the loser looks again. */
async function withRetryOnRace<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 3 || !/already in use|exists/i.test((error as Error).message)) throw error;
    }
  }
}

/** Someone else wrote first (a KV revision or a subject's last sequence moved on). */
export function isWrongLastSequence(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence ||
      error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** The connection was closed by us: stop retrying. */
export function isClosed(error: unknown): boolean {
  return error instanceof errors.ClosedConnectionError || error instanceof errors.DrainingConnectionError;
}

export function isNoResponders(error: unknown): boolean {
  return (
    error instanceof errors.NoRespondersError ||
    (error instanceof Error && error.cause instanceof errors.NoRespondersError)
  );
}

export function isTimeout(error: unknown): boolean {
  return error instanceof errors.TimeoutError || (error instanceof Error && error.cause instanceof errors.TimeoutError);
}

/**
 * Writes `value` under `key` if the key is still at `revision` (0: absent), retrying what NATS did
 * not take. A retry that finds our own value already there (the first try's answer was lost) is
 * a success; anyone else's value there is a wrong last sequence (the caller lost the race).
 */
export async function casPut(kv: KV, key: string, value: string, revision: number, options: RetryOptions) {
  try {
    return await retrying(() => (revision === 0 ? kv.create(key, value) : kv.update(key, value, revision)), options);
  } catch (error) {
    if (!isWrongLastSequence(error)) throw error;
    const current = await retrying(() => kv.get(key), options);
    if (current && current.operation === 'PUT' && current.string() === value) return current.revision;
    throw error;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface RetryOptions {
  /** Checked before each attempt: true ends the loop with the last error. */
  stopped(): boolean;
  log: Logger;
  /** For the log: what is being retried. */
  what: string;
  /** Errors that must not be retried (besides a closed connection and a wrong last sequence). */
  fatal?: (error: unknown) => boolean;
}

/**
 * Runs `work` until it succeeds: NATS away, JetStream not ready, an answer that timed out are
 * tried again after 50 ms, doubling up to 2 s. A wrong last sequence, a closed connection, a
 * `fatal` error or `stopped()` end it with the error.
 */
export async function retrying<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  let delay = 50;
  let warned = false;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (isWrongLastSequence(error) || isClosed(error) || options.fatal?.(error) || options.stopped()) throw error;
      if (!warned) {
        options.log.warn('NATS did not take a write; retrying', {
          what: options.what,
          error: (error as Error).message,
        });
        warned = true;
      }
      await sleep(delay);
      delay = Math.min(2_000, delay * 2);
      if (options.stopped()) throw error;
    }
  }
}
