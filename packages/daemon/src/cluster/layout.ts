// The cluster's layout on NATS JetStream, in one place (docs/architecture/cluster.md draws it):
// one stream of every session's events (a subject per session, the event's `<sessionId>:<seq>`
// as its message id), three key-value buckets (session records, members' heartbeats, the
// process groups each worker started), and a request/reply subject per worker. Pure names and
// configs; nats.ts creates what is missing.
import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';

/** Every event of every session; subject `reins.events.<sessionId>`. */
export const EVENTS_STREAM = 'REINS_EVENTS';
export const EVENTS_SUBJECTS = 'reins.events.*';
/** Session records (ClusterSessionRecord), key = session id. */
export const SESSIONS_BUCKET = 'reins-sessions';
/** Heartbeats (MemberRecord), key = `worker.<id>` or `gateway.<id>`. */
export const MEMBERS_BUCKET = 'reins-members';
/** Process groups a worker started (ProcessGroupRecord), key = `<workerId>.<group>`. */
export const PROCESSES_BUCKET = 'reins-processes';

/** Who wrote the event (a member's id and epoch): tells a fenced writer its write was not its own. */
export const WRITER_HEADER = 'Reins-Writer';

/** How long JetStream remembers a message id to drop a republished copy (ns). */
export const DUPLICATE_WINDOW_NS = 2 * 60 * 1_000_000_000;
/** Members not heard from this long are dropped from the bucket by NATS itself (tidiness only). */
export const MEMBERS_MAX_AGE_MS = 10 * 60_000;

/** Session, worker and gateway ids are single subject tokens (and KV keys). */
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

export function isToken(value: string): boolean {
  return TOKEN.test(value);
}

export const eventSubject = (sessionId: string): string => `reins.events.${sessionId}`;

export function sessionOfSubject(subject: string): string | undefined {
  const id = subject.startsWith('reins.events.') ? subject.slice('reins.events.'.length) : '';
  return isToken(id) ? id : undefined;
}

/** The message id that makes JetStream drop a republished event (BINDING: `<sessionId>:<seq>`). */
export const eventMessageId = (sessionId: string, seq: number): string => `${sessionId}:${seq}`;

export const workerRpcSubject = (workerId: string): string => `reins.worker.${workerId}.rpc`;

export type MemberRole = 'worker' | 'gateway';
export const memberKey = (role: MemberRole, id: string): string => `${role}.${id}`;

export function memberOfKey(key: string): { role: MemberRole; id: string } | undefined {
  const [role, id, ...rest] = key.split('.');
  if (rest.length > 0 || id === undefined || !isToken(id)) return undefined;
  return role === 'worker' || role === 'gateway' ? { role, id } : undefined;
}

/** A process group's key: its id (`<bootId>:<pid>:<startTicks>`) with the characters keys cannot hold replaced. */
export const processKey = (workerId: string, groupId: string): string =>
  `${workerId}.${groupId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

// Durability (docs/architecture/cluster.md, "Limits and durability"): file storage, and one replica,
// the only count a single nats-server accepts. A NATS cluster's operator creates the stream and
// buckets first with 3 replicas (Reins uses them as they are); how often the server fsyncs is the
// server's setting, not the stream's.
const REPLICAS = 1;

/** A key-value bucket as Reins creates it when it is missing: the latest value only, on disk. */
export const BUCKET_CONFIG = { history: 1, storage: 'file', replicas: REPLICAS } as const;

/** The events stream as Reins creates it when it is missing (an existing one is used as it is). */
export function eventsStreamConfig(): Partial<StreamConfig> {
  return {
    name: EVENTS_STREAM,
    subjects: [EVENTS_SUBJECTS],
    description: 'Reins: every event of every session (subject per session, message id <sessionId>:<seq>)',
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_msgs: -1,
    max_bytes: -1,
    max_age: 0,
    duplicate_window: DUPLICATE_WINDOW_NS,
    allow_direct: true,
    num_replicas: REPLICAS,
    // Every publish is acknowledged once stored: a writer retries until it has the ack.
    no_ack: false,
  };
}
