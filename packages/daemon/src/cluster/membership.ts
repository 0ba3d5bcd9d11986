// Members and their heartbeats. Every member (worker or gateway) puts its MemberRecord under
// `<role>.<id>` in the members bucket every interval (a fifth of the deadline) and deletes it when
// it stops cleanly; one that cannot put it for most of the deadline is cut off from NATS and says
// so (`cutOff`: a worker then stops its sessions, docs/architecture/cluster.md "What is not guaranteed"). A
// gateway also watches the bucket and keeps a Liveness view of who is alive (liveness.ts).
import type { KvWatchEntry } from '@nats-io/kv';
import type { Logger } from '../logger.js';
import { type MemberRole, memberKey, memberOfKey } from './layout.js';
import { Liveness } from './liveness.js';
import type { NatsCluster } from './nats.js';
import { heartbeatIntervalMs } from './options.js';
import { decodeMember, type MemberRecord } from './records.js';

export interface HeartbeatOptions {
  role: MemberRole;
  id: string;
  ttlMs: number;
  /** The record to put now (its epoch, labels and load may change between beats). */
  record(): MemberRecord;
  /** No beat got through for most of the deadline (called once per cut; again after a beat got through). */
  cutOff?(): void;
  log: Logger;
}

export class Heartbeat {
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastOk = performance.now();
  private inFlight = false;
  private cut = false;
  private stopped = false;

  constructor(
    private readonly nats: NatsCluster,
    private readonly options: HeartbeatOptions,
  ) {}

  get key(): string {
    return memberKey(this.options.role, this.options.id);
  }

  /** Puts the first beat (awaited: a member is known before it serves), then one every interval. */
  async start(): Promise<void> {
    await this.nats.members.put(this.key, JSON.stringify(this.options.record()));
    this.lastOk = performance.now();
    this.timer = setInterval(() => void this.beat(), heartbeatIntervalMs(this.options.ttlMs));
    this.timer.unref();
  }

  /** Beats now (a worker's load or epoch changed). */
  beatNow(): void {
    void this.beat();
  }

  private async beat(): Promise<void> {
    if (this.stopped || this.inFlight) return;
    const interval = heartbeatIntervalMs(this.options.ttlMs);
    this.inFlight = true;
    try {
      await this.nats.members.put(this.key, JSON.stringify(this.options.record()), { timeout: interval });
      this.lastOk = performance.now();
      this.cut = false;
    } catch {
      // Only a beat that NATS did not take counts (a busy event loop that beats late is not cut off).
      if (!this.cut && !this.stopped && performance.now() - this.lastOk > this.options.ttlMs - interval) {
        this.cut = true;
        this.options.log.error('cut off from NATS for most of the heartbeat deadline', {
          role: this.options.role,
          id: this.options.id,
          ttlMs: this.options.ttlMs,
        });
        this.options.cutOff?.();
      }
    } finally {
      this.inFlight = false;
    }
  }

  /** Stops beating and deletes the key (a clean exit: gateways see the member leave at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // Bounded: with NATS away the key expires by itself (the bucket's max age).
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.nats.members.delete(this.key).catch(() => {}),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 2_000);
      }),
    ]);
    clearTimeout(timer);
  }
}

/** The members bucket as a gateway sees it: who is alive, by the heartbeats that arrive here. */
export class MembersView {
  readonly liveness: Liveness;
  /** The run each member key was last seen as. */
  private readonly epochs = new Map<string, string>();
  private watching: { stop(): void } | undefined;

  constructor(
    private readonly nats: NatsCluster,
    selfKey: string,
    ttlMs: number,
    private readonly log: Logger,
    /** A member came, went, or came back as another run. */
    private readonly changed: () => void,
  ) {
    this.liveness = new Liveness(ttlMs, selfKey);
  }

  async start(): Promise<void> {
    const watch = await this.nats.members.watch();
    this.watching = watch;
    void (async () => {
      for await (const entry of watch) this.take(entry);
    })().catch((error: unknown) => this.log.error('members watch ended', { error: (error as Error).message }));
  }

  private take(entry: KvWatchEntry): void {
    if (!memberOfKey(entry.key)) return;
    if (entry.operation !== 'PUT') {
      this.epochs.delete(entry.key);
      this.liveness.left(entry.key);
      this.changed();
      return;
    }
    const record = decodeMember(entry.value);
    if (!record) {
      this.log.warn('skipped a member record that is not one', { key: entry.key });
      return;
    }
    this.liveness.beat(entry.key, record, performance.now());
    if (this.epochs.get(entry.key) !== record.epoch) {
      this.epochs.set(entry.key, record.epoch);
      this.changed();
    }
  }

  stop(): void {
    this.watching?.stop();
  }
}
