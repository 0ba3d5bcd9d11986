// One ACP session over one Reins session: a pump turns the session's events into `session/update`
// notifications (translate.ts, behind its guard), settles `session/prompt` requests with their turn's
// terminal, and asks the client for permissions. Whatever the harness sends only ever hurts this
// session: an event that cannot be translated is left out (and logged), and a session whose stream
// breaks fails its waiting prompts, while every other session goes on.
import {
  type PermissionDecision,
  type PermissionRequestedEvent,
  ReinsError,
  type ReinsEvent,
  type Session,
  type SessionSpec,
  type TurnCompletedEvent,
} from '@reins/core';
import { eventChecker, type TranslationFault, translatedSafely } from '../events.js';
import { permissionRequestOf } from './answers.js';
import type { ClientPort, V2Only } from './port.js';
import { decisionOf } from './requests.js';
import { type BridgeState, translateEvent } from './translate.js';
import type { SessionUpdate } from './wire.js';

/** Updates held for a session the client has not been told about yet (bounded). */
const MAX_HELD_UPDATES = 10_000;
/** Terminals of turns nobody waits for yet (send() answers after the turn may have ended). */
const MAX_UNCLAIMED_TERMINALS = 100;

interface TurnWaiter {
  resolve: (event: TurnCompletedEvent) => void;
  reject: (error: ReinsError) => void;
}

export interface SessionContext {
  /** The client, as the protocol version it chose speaks (port.ts). */
  connection: () => ClientPort | undefined;
  permissionTimeoutMs: number;
  log: (message: string) => void;
  /** The session's settings changed (model, effort): the bridge remembers them. */
  changed: (session: BridgeSession) => void;
}

export class BridgeSession {
  readonly pump: Promise<void>;
  /** Items settled outside any turn (history a resume replayed). */
  replayedItems = 0;
  private announced: boolean;
  private held: SessionUpdate[] = [];
  private outbox: Promise<void> = Promise.resolve();
  private readonly waiters = new Map<string, TurnWaiter>();
  private readonly unclaimed = new Map<string, TurnCompletedEvent>();
  private readonly permissions = new Map<string, AbortController>();
  private readonly faults = new Set<string>();
  private ended: ReinsError | undefined;

  constructor(
    readonly acpId: string,
    readonly session: Session,
    readonly state: BridgeState,
    /** What the session was made with (a mode change restarts it with another posture). */
    readonly spec: SessionSpec,
    private readonly context: SessionContext,
    options: { announced: boolean },
  ) {
    this.announced = options.announced;
    this.pump = this.run();
  }

  /** A prompt is waiting for its turn to end. */
  get busy(): boolean {
    return this.waiters.size > 0;
  }

  /** The client now knows the session id: send what was held (its config options went with the answer). */
  announce(): void {
    if (this.announced) return;
    this.announced = true;
    const held = this.held.filter((update) => update.sessionUpdate !== 'config_option_update');
    this.held = [];
    for (const update of held) void this.send(update);
  }

  /** Queues one update; updates reach the client in the order they were sent. */
  send(update: SessionUpdate): Promise<void> {
    if (!this.announced) {
      if (this.held.length < MAX_HELD_UPDATES) this.held.push(update);
      return Promise.resolve();
    }
    this.outbox = this.outbox.then(() => this.write(update));
    return this.outbox;
  }

  /** Queues what only ACP v2 says (port.ts) behind the updates already queued. */
  sendV2(message: V2Only): Promise<void> {
    this.outbox = this.outbox.then(() => this.write({ v2: message }));
    return this.outbox;
  }

  private async write(message: SessionUpdate | { v2: V2Only }): Promise<void> {
    const port = this.context.connection();
    if (!port || port.signal.aborted) return;
    try {
      if ('v2' in message) await port.v2Only(this.acpId, message.v2);
      else await port.update(this.acpId, message);
    } catch (error) {
      if (!port.signal.aborted) this.context.log(`could not send session/update: ${String(error)}`);
    }
  }

  private fault(fault: TranslationFault): void {
    if (this.faults.has(fault.eventType)) return;
    this.faults.add(fault.eventType);
    this.context.log(`session ${this.acpId}: left out a ${fault.eventType} event (${fault.reason})`);
  }

  private translate(event: ReinsEvent): SessionUpdate[] {
    if (!this.state.notices && (event.type === 'notice' || event.type === 'error')) {
      // The client did not advertise session.notices: ACP has no other place for these words.
      this.context.log(`session ${this.acpId}: ${event.type === 'error' ? 'error' : event.kind}: ${event.message}`);
    }
    return translatedSafely(
      event,
      (valid) => translateEvent(this.state, valid),
      (fault) => this.fault(fault),
    );
  }

  private async run(): Promise<void> {
    try {
      const events = this.session.events;
      const check = eventChecker(events);
      for await (const raw of events) {
        const checked = check(raw);
        if ('fault' in checked) {
          this.fault(checked.fault);
          continue;
        }
        const event = checked.event;
        const before = `${this.state.settings.model}|${this.state.settings.effort}`;
        for (const update of this.translate(event)) await this.send(update);
        if (`${this.state.settings.model}|${this.state.settings.effort}` !== before) this.context.changed(this);
        switch (event.type) {
          case 'item.completed':
            if (event.turnId === null) this.replayedItems++;
            break;
          case 'permission.requested':
            void this.askPermission(event);
            break;
          case 'permission.resolved':
            // The harness withdrew the request or its own deadline passed: stop asking the client.
            if (event.by !== 'client') this.permissions.get(event.requestId)?.abort();
            break;
          case 'turn.completed':
            if (event.turnId) this.settle(event.turnId, event);
            break;
          case 'session.closed':
            this.end(
              event.error
                ? ReinsError.fromInfo(event.error)
                : new ReinsError('process_exited', `The ${event.harness} session was closed (${event.reason}).`),
            );
            break;
          default:
            break;
        }
      }
    } catch (error) {
      this.context.log(`the event stream of session ${this.acpId} failed: ${String(error)}`);
    }
    this.end(new ReinsError('process_exited', `The session ${this.acpId} has ended.`));
  }

  private settle(turnId: string, event: TurnCompletedEvent): void {
    const waiter = this.waiters.get(turnId);
    if (waiter) {
      this.waiters.delete(turnId);
      waiter.resolve(event);
      return;
    }
    if (this.unclaimed.size >= MAX_UNCLAIMED_TERMINALS) {
      const oldest = this.unclaimed.keys().next().value;
      if (oldest !== undefined) this.unclaimed.delete(oldest);
    }
    this.unclaimed.set(turnId, event);
  }

  private end(error: ReinsError): void {
    this.ended ??= error;
    for (const [turnId, waiter] of this.waiters) {
      this.waiters.delete(turnId);
      waiter.reject(this.ended);
    }
    for (const controller of this.permissions.values()) controller.abort();
  }

  /** The terminal of a turn `send` started or queued. */
  waitForTurn(turnId: string): Promise<TurnCompletedEvent> {
    const done = this.unclaimed.get(turnId);
    if (done) {
      this.unclaimed.delete(turnId);
      return Promise.resolve(done);
    }
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => this.waiters.set(turnId, { resolve, reject }));
  }

  private async askPermission(event: PermissionRequestedEvent): Promise<void> {
    const connection = this.context.connection();
    const { toolCall, options } = permissionRequestOf(this.state.tools, event);
    const controller = new AbortController();
    this.permissions.set(event.requestId, controller);
    const timer = setTimeout(() => controller.abort(), this.context.permissionTimeoutMs);
    let decision: PermissionDecision = { behavior: 'deny' };
    try {
      if (!connection) throw new Error('no client connection');
      const answer = await connection.requestPermission(
        { sessionId: this.acpId, toolCall, options },
        controller.signal,
      );
      decision = decisionOf(answer.outcome, event.options);
    } catch (error) {
      // Withdrawn, timed out, or the client failed to answer: the tool does not run.
      if (!controller.signal.aborted) this.context.log(`permission request failed, denying: ${String(error)}`);
    } finally {
      clearTimeout(timer);
      this.permissions.delete(event.requestId);
    }
    if (this.ended) return;
    await this.session.respondToPermission(event.requestId, decision).catch((error: unknown) => {
      // Already settled by the harness (withdrawn or its own deadline): nothing waits for this answer.
      if (!(ReinsError.isInstance(error) && error.code === 'invalid_input')) {
        this.context.log(`respondToPermission failed: ${String(error)}`);
      }
    });
  }

  close(): Promise<void> {
    return this.session.close();
  }
}
