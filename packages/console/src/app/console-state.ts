// The console's state outside React: the connection (reconnecting), the session directory kept live
// by the daemon's notifications, the harness list, and one SessionModel per session the user opened,
// each followed across reconnects. Actions on a session go through its current RemoteSession; what
// fails is told in the transcript with the daemon's error code and message. Views subscribe and
// re-read on every change (`version`).
import type { HarnessListing, RemoteSession, WebSocketConstructor } from '@reins/client';
import {
  type Effort,
  type ErrorInfo,
  type HarnessId,
  type PermissionDecision,
  ReinsError,
  type RevertResult,
  type SessionSpec,
} from '@reins/core';
import { DaemonApi } from '../api/daemon-api.js';
import { ConsoleConnection } from '../model/connection.js';
import type { FetchNativeFrames } from '../model/native-frames.js';
import type { DeliveryMode } from '../model/outbox.js';
import { SessionDirectory } from '../model/session-directory.js';
import { SessionModel } from '../model/session-model.js';

interface OpenSession {
  model: SessionModel;
  follow: { stop(): void; session(): unknown };
  attachError?: ErrorInfo;
}

/** Sessions followed at once; the least recently opened stops first. */
const MAX_FOLLOWED = 8;

export function errorInfo(error: unknown): ErrorInfo {
  return ReinsError.from(error, 'protocol_error').toInfo();
}

export class ConsoleState {
  readonly connection: ConsoleConnection<DaemonApi>;
  readonly directory = new SessionDirectory();
  harnesses: HarnessListing[] | undefined;
  harnessesError: ErrorInfo | undefined;
  private readonly open = new Map<string, OpenSession>();
  private readonly listeners = new Set<() => void>();
  private changeCount = 0;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private unlink: Array<() => void> = [];

  /**
   * @param defaultCwd where new sessions start unless the user picks another folder (the folder
   *   `reins console` was run in, from its link).
   * @param WebSocketClass how sockets are opened (the page's hands over the one its entry opened).
   */
  constructor(
    url: string,
    token: string,
    readonly defaultCwd?: string,
    WebSocketClass?: WebSocketConstructor,
  ) {
    this.connection = new ConsoleConnection(() => DaemonApi.open(url, token, WebSocketClass));
    this.connection.onState(() => this.changed());
    this.connection.onLink((api) => this.linked(api));
  }

  start(): void {
    void this.connection.start();
  }

  get api(): DaemonApi | undefined {
    return this.connection.link;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  version = (): number => this.changeCount;

  // ---- sessions --------------------------------------------------------------------------------------

  /** The model of a session, followed from now on (replaying its whole log the first time). */
  session(sessionId: string, adopt?: RemoteSession): SessionModel {
    const existing = this.open.get(sessionId);
    if (existing) {
      // Most recently used last.
      this.open.delete(sessionId);
      this.open.set(sessionId, existing);
      if (adopt) void adopt.detach().catch(() => {});
      return existing.model;
    }
    const model = new SessionModel(sessionId);
    const entry: OpenSession = {
      model,
      follow: this.connection.follow(
        sessionId,
        {
          get lastSeq() {
            return model.lastSeq;
          },
          receiveAll: (events) => model.receiveAll(events),
          catchingUp: (seq) => model.catchingUp(seq),
          attachFailed: (error) => {
            entry.attachError = error.toInfo();
            this.changed();
          },
        },
        adopt,
      ),
    };
    this.open.set(sessionId, entry);
    for (const [id, old] of this.open) {
      if (this.open.size <= MAX_FOLLOWED) break;
      old.follow.stop();
      this.open.delete(id);
    }
    return model;
  }

  attachError(sessionId: string): ErrorInfo | undefined {
    return this.open.get(sessionId)?.attachError;
  }

  async createSession(harness: HarnessId, spec: SessionSpec): Promise<string> {
    const remote = await this.requireApi().createSession(harness, spec);
    this.session(remote.id, remote);
    this.scheduleReload();
    return remote.id;
  }

  async send(sessionId: string, text: string, mode: DeliveryMode): Promise<void> {
    const model = this.session(sessionId);
    const pending = model.beginSend(text, mode);
    try {
      const result = await this.remote(sessionId).send(text, {
        clientMessageId: pending.clientMessageId,
        ...(mode === 'steer' ? { mode: 'steer', steerFallback: 'queue' } : { mode: 'queue' }),
      });
      model.sendSucceeded(pending.clientMessageId, result);
    } catch (error) {
      model.sendFailed(pending.clientMessageId, errorInfo(error));
    }
  }

  interrupt(sessionId: string): Promise<void> {
    return this.act(sessionId, 'Interrupt', (remote) => remote.interrupt());
  }

  async setModel(sessionId: string, modelId: string): Promise<void> {
    await this.act(sessionId, `Switch to ${modelId}`, async (remote) => {
      const change = await remote.setModel(modelId);
      this.session(sessionId).note(`Model set to ${modelId}: ${appliedText(change.applied)}.`);
    });
  }

  async setEffort(sessionId: string, effort: Effort): Promise<void> {
    await this.act(sessionId, `Set effort ${effort}`, async (remote) => {
      const change = await remote.setEffort(effort);
      this.session(sessionId).note(`Effort set to ${effort}: ${appliedText(change.applied)}.`);
    });
  }

  respond(sessionId: string, requestId: string, decision: PermissionDecision): Promise<void> {
    return this.act(sessionId, decision.behavior === 'allow' ? 'Approve' : 'Deny', (remote) =>
      remote.respondToPermission(requestId, decision),
    );
  }

  /** Undo a checkpointed turn: the files (and the conversation where the harness can) go back. */
  revert(sessionId: string, turnId: string): Promise<void> {
    return this.act(sessionId, 'Undo', async (remote) => {
      const result = await remote.revert(turnId);
      this.session(sessionId).reverted(turnId, revertText(result));
    });
  }

  close(sessionId: string): Promise<void> {
    return this.act(sessionId, 'Close', (remote) => remote.close());
  }

  /** The stored native frames of the events after `afterSeq` (the raw-frames panel; events come without them). */
  nativeFrames(sessionId: string, afterSeq: number, limit: number): ReturnType<FetchNativeFrames> {
    return this.remote(sessionId).nativeFrames(afterSeq, limit);
  }

  async fork(sessionId: string): Promise<string | undefined> {
    try {
      const forked = await this.requireApi().fork(sessionId);
      this.scheduleReload();
      return forked.sessionId;
    } catch (error) {
      this.session(sessionId).note(failureText('Fork', errorInfo(error)), 'error');
      return undefined;
    }
  }

  async delete(sessionId: string): Promise<void> {
    await this.requireApi().deleteSession(sessionId);
    this.open.get(sessionId)?.follow.stop();
    this.open.delete(sessionId);
    this.directory.applyChange({ sessionId, change: 'deleted' });
    this.changed();
  }

  // ---- harnesses --------------------------------------------------------------------------------------

  async reloadHarnesses(): Promise<void> {
    const api = this.api;
    if (!api) return;
    try {
      this.harnesses = await api.harnesses();
      this.harnessesError = undefined;
    } catch (error) {
      this.harnessesError = errorInfo(error);
    }
    this.changed();
  }

  // ---- internals ------------------------------------------------------------------------------------

  private requireApi(): DaemonApi {
    const api = this.api;
    if (!api) throw new ReinsError('process_exited', 'Not connected to the Reins daemon (reconnecting).');
    return api;
  }

  /** The session's current attachment: a RemoteSession on the open link (DaemonApi.attach makes those). */
  private remote(sessionId: string): RemoteSession {
    const remote = this.open.get(sessionId)?.follow.session() as RemoteSession | undefined;
    if (!remote) throw new ReinsError('process_exited', 'Not connected to this session yet (reconnecting).');
    return remote;
  }

  private async act(
    sessionId: string,
    what: string,
    action: (remote: RemoteSession) => Promise<unknown>,
  ): Promise<void> {
    try {
      await action(this.remote(sessionId));
    } catch (error) {
      this.session(sessionId).note(failureText(what, errorInfo(error)), 'error');
    }
  }

  private linked(api: DaemonApi): void {
    for (const stop of this.unlink.splice(0)) stop();
    this.unlink.push(
      api.onStatusSnapshot((snapshot) => {
        this.directory.applySnapshot(snapshot);
        if (this.directory.stale) this.scheduleReload();
        this.changed();
      }),
      api.onSessionsChanged((change) => {
        this.directory.applyChange(change);
        this.scheduleReload();
        this.changed();
      }),
    );
    void this.reloadSessions();
    void this.reloadHarnesses();
  }

  private scheduleReload(): void {
    if (this.reloadTimer !== undefined) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      void this.reloadSessions();
    }, 100);
  }

  private async reloadSessions(): Promise<void> {
    const api = this.api;
    if (!api) return;
    try {
      // Fresher than any snapshot seen so far; the next snapshot brings later states.
      this.directory.replaceAll(await api.listSessions());
    } catch {
      // the connection dropped: the next link lists them again
    }
    this.changed();
  }

  private changed(): void {
    this.changeCount++;
    for (const listener of [...this.listeners]) listener();
  }
}

export function appliedText(applied: 'live' | 'next_turn' | 'restart'): string {
  if (applied === 'live') return 'applied live';
  if (applied === 'next_turn') return 'applies from the next turn';
  return 'applied by restarting the harness (the conversation resumes)';
}

export function revertText(result: RevertResult): string {
  const files = result.files.length === 0 ? 'no file needed putting back' : `put back ${result.files.join(', ')}`;
  const conversation = {
    reverted: 'the conversation went back too',
    forked: 'the conversation continues in a fork from before it',
    unchanged: 'the conversation is unchanged (files only)',
  }[result.conversation];
  return `Undid ${result.turnId}: ${files}; ${conversation}.`;
}

function failureText(what: string, error: ErrorInfo): string {
  return `${what} failed: ${error.code}: ${error.message}`;
}
