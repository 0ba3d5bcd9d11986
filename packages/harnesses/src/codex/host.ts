// One initialised Codex app-server and the sessions on it (docs/architecture/contract.md, "Warm starts
// and shared processes"). The host owns the JSON-RPC peer of the process, hands each session a lease
// (a CodexConnection) and routes every frame to the lease of its thread (thread-router.ts). A lease
// closes alone: its running turn is interrupted and its thread unsubscribed while others stay; the
// process ends with the last lease (reference count). When the process ends every lease hears it
// through `exited`, each with the same process_exited error (the stderr tail belongs to all of them).
// A one-off caller (catalog, account, session list, history) takes a hold instead of a lease: it
// sends requests and reads their answers, owns no thread and is no session to the router, and the
// process does not end while it holds it.
// A warm host may open a thread ahead (thread-ahead.ts): the next session whose spec fits takes it
// instead of waiting for its own thread/start, and on a shared process the next one opens a while later.
// The transport is injected, so unit tests run hosts on an in-memory peer (host.test.ts).
import { isRecord, ReinsError, type SessionSpec } from '@reins/core';
import type { CloseOptions } from '../runtime/child-process.js';
import { JsonRpcHandlerError, type JsonRpcPeer } from '../runtime/json-rpc.js';
import { type OpenedThread, openThread } from './open-thread.js';
import { type CodexConnection, type ConnectionHooks, codexPeer, type ThreadAheadClaim } from './peer.js';
import { type ThreadTemplate, threadAheadMisfit } from './thread-ahead.js';
import { ThreadRouter } from './thread-router.js';
import type { NotificationFrame } from './translate.js';
import type { InitializeParams, InitializeResponse } from './wire.js';

const INITIALIZE_PARAMS: InitializeParams = {
  clientInfo: { name: 'reins', title: 'Reins', version: '0.1.0' },
  capabilities: { experimentalApi: false, requestAttestation: false },
};
/** Outside the peer's own ids (1, 2, ...): the request is written before the peer exists. */
const INITIALIZE_ID = 0;
/**
 * Every app-server's first line, written as it is spawned (SpawnSpec.firstLine), so Codex initializes
 * while Reins still loads; the host then reads its answer. The `reins` executable's prestart writes the
 * same text (packages/cli/bin/reins.js); a child that got any other first line is not handed over.
 */
export const INITIALIZE_LINE = JSON.stringify({ id: INITIALIZE_ID, method: 'initialize', params: INITIALIZE_PARAMS });
/** How long a leaving session waits for Codex to take its turn/interrupt and thread/unsubscribe (ms). */
const RELEASE_TIMEOUT_MS = 5_000;

/** The process under a host, as the host needs it (HarnessProcess in production, a script in tests). */
export interface HostTransport {
  /** Writes one line; false when the process is gone. */
  send(line: string): boolean;
  /** Hands each stdout line to the host. */
  onLine(handler: (line: string) => void): void;
  /** Hears of a stdout line over Reins' limit (skipped whole). */
  onOversizeLine(handler: (bytes: number) => void): void;
  readonly exited: Promise<unknown>;
  readonly binaryPath: string;
  /** The executable's file as it was when the process started (fileStamp), when known. */
  readonly binaryStamp?: string;
  /** The process_exited error for how it ended, with its last stderr lines. */
  exitError(): ReinsError;
  close(options?: CloseOptions): Promise<void>;
  /** Ends what the process started for these threads (their shell commands), leaving the rest. */
  endThreadProcesses?(threads: ReadonlySet<string>): Promise<void>;
  /** INITIALIZE_LINE was written as the process started: the host only reads its answer. */
  readonly wroteInitialize?: boolean;
}

type Lease = ConnectionHooks & { threads: Set<string>; refillAhead: boolean };

/** A thread opened ahead: open with the files Codex read then (their fingerprint), or failed. */
type AheadThread = { opened: OpenedThread; fingerprint: string } | { failed: string };

export class CodexHost {
  readonly peer: JsonRpcPeer;
  private readonly router = new ThreadRouter<Lease, NotificationFrame>();
  /** The native turn running on each thread (from turn/started), so a leaving session can stop it. */
  private readonly activeTurns = new Map<string, string>();
  private initialized: InitializeResponse | undefined;
  private gone = false;
  private closing: Promise<void> | undefined;
  /** Session handlers that threw on a frame (each was kept from the other sessions). */
  handlerErrors = 0;
  /** Told once the host has no lease left and is closing, or its process ended. */
  onRetired: (() => void) | undefined;
  /** One-off callers on the process now (hold()). */
  private holds = 0;
  /** The thread opened ahead for the next session that fits it (thread-ahead.ts), open or opening. */
  private ahead: { template: ThreadTemplate; thread: Promise<AheadThread> } | undefined;
  /** What this host opens threads ahead with, once it did. */
  private aheadTemplate: ThreadTemplate | undefined;
  private aheadRefill: ReturnType<typeof setTimeout> | undefined;
  /**
   * Set on a warm host whose threads ahead follow the sessions (warmThread 'last-session'): the template
   * of a session's settings; a session that did not take the thread ahead moves the next one to its own.
   */
  followSessions: ((spec: SessionSpec) => ThreadTemplate | undefined) | undefined;
  /**
   * Hands a routed frame to its session, kept from the others (one function per host, not per frame).
   * `at` is the time the peer read for the frame: a Date.now() per delivery was one more heap number
   * per frame (a millisecond clock is past V8's small-integer range; 16 B each, measured).
   */
  private readonly deliver = (lease: Lease, frame: NotificationFrame, at: number): void => {
    try {
      lease.onNotification?.(frame, at);
    } catch {
      this.handlerErrors++;
    }
  };

  private constructor(
    private readonly transport: HostTransport,
    timeoutMs: number,
  ) {
    const { peer, receiveLine } = codexPeer((line) => transport.send(line), this.hostHooks(), timeoutMs);
    this.peer = peer;
    transport.onLine(receiveLine);
    transport.onOversizeLine((bytes) => {
      for (const lease of this.router.attached) this.guarded(() => lease.onOversizeLine?.(bytes));
    });
    void transport.exited.then(() => {
      this.gone = true;
      peer.close(transport.exitError());
      this.onRetired?.();
    });
  }

  /** Initializes the app-server on `transport`; closes it and rethrows when that fails. */
  static async open(transport: HostTransport, timeoutMs: number): Promise<CodexHost> {
    const host = new CodexHost(transport, timeoutMs);
    try {
      const answer = host.peer.expectAnswer<InitializeResponse>(INITIALIZE_ID, 'initialize');
      if (!transport.wroteInitialize && !transport.send(INITIALIZE_LINE)) {
        host.peer.forget(INITIALIZE_ID, transport.exitError());
      }
      host.initialized = await answer;
      host.peer.notify('initialized', {});
      return host;
    } catch (error) {
      await transport.close({ stdinGraceMs: 200, termGraceMs: 1000 });
      throw error;
    }
  }

  /** Sessions on this process now. */
  get leaseCount(): number {
    return this.router.leaseCount;
  }

  /** No session and no one-off caller holds the process. */
  get idle(): boolean {
    return this.router.leaseCount === 0 && this.holds === 0;
  }

  /** False once the process ended or the host is closing: it takes no new lease. */
  get usable(): boolean {
    return !this.gone && this.closing === undefined;
  }

  /**
   * Usable, and started from the executable a process would start from now (`binaryStamp`, fileStamp
   * of it): after Codex is upgraded in place, a new session gets the new one while the sessions on
   * this host stay until they close (it ends with its last one). Unknown stamps are not told apart.
   */
  takesSessionsOf(binaryStamp: string | undefined): boolean {
    const own = this.transport.binaryStamp;
    return this.usable && (binaryStamp === undefined || own === undefined || own === binaryStamp);
  }

  get exited(): Promise<unknown> {
    return this.transport.exited;
  }

  /** Frames no session could be named for (held past the bound, or of a session that left). */
  get droppedFrames(): number {
    return this.router.dropped;
  }

  /** Whether a session here owns the thread (a second session on the same thread gets its own process). */
  owns(threadId: string): boolean {
    return this.router.owns(threadId);
  }

  /**
   * Opens a thread ahead with `template` (thread/start) for the next session that fits it; resolves
   * once it is open or failed (a failure only means that session opens its own).
   */
  async openThreadAhead(template: ThreadTemplate): Promise<void> {
    this.router.expectThreadsAhead();
    this.aheadTemplate = template;
    const thread = (async (): Promise<AheadThread> => {
      // Before thread/start: a file changed while Codex reads it makes the claim miss, never a stale thread.
      const fingerprint = await template.fingerprint();
      try {
        return { opened: await openThread(this.peer, template.spec), fingerprint };
      } catch (error) {
        return { failed: ReinsError.from(error, 'harness_unhealthy').message };
      }
    })();
    this.ahead = { template, thread };
    await thread;
  }

  /**
   * The thread opened ahead, when `spec` fits it and nothing Codex read for it changed since; else
   * why not (the caller opens its own), or `none` when no thread was opened ahead for the next session.
   */
  private async claimThreadAhead(spec: SessionSpec, refill: boolean): Promise<ThreadAheadClaim> {
    const template = this.followSessions?.(spec);
    const claim = await this.claimOrMiss(spec, refill);
    if (template && claim.kind !== 'claimed') this.followTo(template, refill);
    return claim;
  }

  /** The next thread ahead is opened with the last session's settings; one opened for others is let go. */
  private followTo(template: ThreadTemplate, refill: boolean): void {
    const current = this.ahead?.template ?? this.aheadTemplate;
    const same = current !== undefined && threadAheadMisfit(template.spec, current.spec) === undefined;
    if (same && (this.ahead || this.aheadRefill)) return; // open, opening, or its refill is on the way
    const stale = this.ahead;
    this.ahead = undefined;
    void stale?.thread.then((thread) => {
      if ('opened' in thread) this.dropThread(thread.opened.thread.id);
    });
    this.aheadTemplate = template;
    if (refill) this.refillAhead(template);
  }

  private async claimOrMiss(spec: SessionSpec, refill: boolean): Promise<ThreadAheadClaim> {
    const ahead = this.ahead;
    // Another session took it and the next one is not open yet (refillAhead).
    if (!ahead) return this.aheadTemplate ? { kind: 'miss', reason: 'taken' } : { kind: 'none' };
    const misfit = threadAheadMisfit(spec, ahead.template.spec);
    // Another session may still fit it: it stays.
    if (misfit) return { kind: 'miss', reason: misfit };
    this.ahead = undefined; // taken before any await: two sessions never get one thread
    const thread = await ahead.thread;
    if ('failed' in thread) return { kind: 'miss', reason: 'thread_start_failed' };
    if (refill) this.refillAhead(ahead.template);
    if ((await ahead.template.fingerprint()) !== thread.fingerprint) {
      this.dropThread(thread.opened.thread.id);
      return { kind: 'miss', reason: 'instructions_changed' };
    }
    return { kind: 'claimed', opened: thread.opened };
  }

  /** The next thread ahead on a shared process, late enough not to slow the first turn of the one taken. */
  private refillAhead(template: ThreadTemplate): void {
    clearTimeout(this.aheadRefill);
    this.aheadRefill = setTimeout(() => {
      this.aheadRefill = undefined;
      if (this.usable && !this.ahead && this.leaseCount > 0) void this.openThreadAhead(template);
    }, template.refillDelayMs);
    this.aheadRefill.unref?.();
  }

  /** A thread opened ahead that nobody may take: Codex unloads it (best effort). */
  private dropThread(threadId: string): void {
    void this.peer.request('thread/unsubscribe', { threadId }, { timeoutMs: RELEASE_TIMEOUT_MS }).catch(() => {});
  }

  /** A session's hold on this process; `refillAhead` false: no other session will come (a process of its own). */
  lease(hooks: ConnectionHooks, options: { refillAhead?: boolean } = {}): CodexConnection {
    const lease: Lease = { ...hooks, threads: new Set(), refillAhead: options.refillAhead !== false };
    this.router.attach(lease);
    let released: Promise<void> | undefined;
    return {
      peer: this.peer,
      initialize: this.initialized as InitializeResponse,
      binaryPath: this.transport.binaryPath,
      exited: this.transport.exited,
      exitError: () => this.transport.exitError(),
      bindThread: (threadId) => {
        lease.threads.add(threadId);
        this.router.bind(threadId, lease, Date.now(), this.deliver);
      },
      claimThreadAhead: (spec) => this.claimThreadAhead(spec, lease.refillAhead),
      close: (options) => {
        released ??= this.release(lease, options);
        return released;
      },
    };
  }

  /**
   * A one-off caller's hold: requests on `peer` only (no thread, no hooks: the first session on the
   * process is still its sole one, contract.md "Warm starts and shared processes"). The returned
   * release is idempotent; it ends the process when sessions used it and all have left meanwhile.
   * A process nobody leased (a warm one, or one a probe started) is its starter's to end.
   */
  hold(): () => Promise<void> {
    this.holds++;
    let released: Promise<void> | undefined;
    return () => {
      released ??= (async () => {
        this.holds--;
        if (this.idle && this.router.everAttached) await this.close({ stdinGraceMs: 500, termGraceMs: 1000 });
      })();
      return released;
    };
  }

  /** Ends the process whatever holds it (probes, the pool, Reins shutting down). */
  close(options?: CloseOptions): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.aheadRefill);
      this.onRetired?.();
      await this.transport.close(options);
    })();
    return this.closing;
  }

  private async release(lease: Lease, options: CloseOptions | undefined): Promise<void> {
    const threads = this.router.detach(lease);
    if (this.idle) return this.close(options);
    if (this.gone) return;
    // Others still use the process: stop only this session's work there (best effort, bounded). On
    // 0.171.0 the other threads run on through a turn/interrupt and a thread/unsubscribe of one thread
    // (shared.real.test.ts); a shell command the interrupted turn started keeps running until the
    // process ends (seen on 0.169.0 for turn/interrupt), a known limit of sharing.
    const own = threads.filter((threadId) => lease.threads.has(threadId));
    await Promise.all(
      own.map(async (threadId) => {
        const turnId = this.activeTurns.get(threadId);
        this.activeTurns.delete(threadId);
        try {
          if (turnId)
            await this.peer.request('turn/interrupt', { threadId, turnId }, { timeoutMs: RELEASE_TIMEOUT_MS });
          await this.peer.request('thread/unsubscribe', { threadId }, { timeoutMs: RELEASE_TIMEOUT_MS });
        } catch {
          // the session is closed either way; its thread's late frames reach nobody
        }
      }),
    );
    // Its subagents' threads too: nothing the session started outlives its close.
    await this.transport.endThreadProcesses?.(new Set(threads)).catch(() => {});
  }

  /**
   * One session's handler that throws must not stop the process every session runs on (the line
   * handler would): the error stays that session's, counted here. Sessions guard their own
   * translation (the chassis); this is the line behind it.
   */
  private guarded(run: () => void): void {
    try {
      run();
    } catch {
      this.handlerErrors++;
    }
  }

  private hostHooks(): ConnectionHooks {
    return {
      onNotification: (frame, at) => {
        this.trackTurn(frame);
        this.router.route(frame, at, this.deliver);
      },
      onRequest: (method, params, id, frame) => {
        const lease = this.router.routeRequest(params);
        if (!lease?.onRequest) {
          // Nobody can answer for this thread; refusing beats leaving Codex waiting.
          return Promise.reject(new JsonRpcHandlerError(-32603, `No Reins session holds the thread of ${method}.`));
        }
        return lease.onRequest(method, params, id, frame);
      },
      onStray: (frame, at, reason) => this.guarded(() => this.router.strayOwner()?.onStray?.(frame, at, reason)),
    };
  }

  private trackTurn(frame: NotificationFrame): void {
    const params = isRecord(frame.params) ? frame.params : undefined;
    if (!params || typeof params.threadId !== 'string' || !isRecord(params.turn)) return;
    if (frame.method === 'turn/started' && typeof params.turn.id === 'string') {
      this.activeTurns.set(params.threadId, params.turn.id);
    } else if (frame.method === 'turn/completed') {
      this.activeTurns.delete(params.threadId);
    }
  }
}
