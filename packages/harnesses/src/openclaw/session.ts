// The OpenClaw session: one gateway session key driven over an operator WebSocket, on the shared session
// chassis. What is OpenClaw's own lives here: the connection and its loss, chat.send / chat.abort by run
// id, steering with queueMode "steer", sessions.patch for model and thinking level, and the run's usage
// read back from its transcript rows after the terminal (openclaw 2026.9.6: the live stream reports
// output tokens only).
import { randomUUID } from 'node:crypto';
import {
  type DiscoveredBinary,
  type Effort,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type RevertOptions,
  type RevertResult,
  type SendOptions,
  type SendResult,
  type Session,
  type SessionDiff,
  type SessionSpec,
  type SettingChange,
  type TurnInput,
  unsupportedModelError,
} from '@reins/core';
import { type ChassisTurn, SessionChassis, type TurnHost } from '../runtime/chassis/index.js';
import { filesOnly, sessionDiff, sessionRevert } from '../runtime/checkpoints/index.js';
import type { HarnessOptions } from '../runtime/options.js';
import { GatewayConnection } from './connection.js';
import type { LocalGateway } from './gateway.js';
import type { GatewayLease } from './gateways.js';
import {
  beginOpenClawRun,
  createOpenClawTranslateState,
  type OpenClawTerminal,
  type OpenClawTranslateState,
  openClawRunUsage,
  translateOpenClawEvent,
} from './translate.js';
import type { GatewayEvent } from './wire.js';

export const OPENCLAW_SOURCE = 'openclaw.gateway';
export const DEFAULT_OPENCLAW_TIMEOUT_MS = 30_000;
/** The terminal must not wait on a busy gateway's bookkeeping for long. */
const USAGE_TIMEOUT_MS = 20_000;
/** How long a dropped socket waits for its local gateway's exit to be seen. */
const EXIT_WAIT_MS = 1_000;

export interface OpenClawSessionOptions extends HarnessOptions {
  connectTimeoutMs?: number;
}

/** Each turn is one gateway run; its id is the chat.send idempotency key. */
interface RunPlan {
  runId: string;
}

export class OpenClawSession implements Session, TurnHost<RunPlan> {
  readonly id = randomUUID();
  readonly harness = 'openclaw' as const;
  readonly nativeSessionId: string;
  private readonly chassis: SessionChassis<RunPlan>;
  private readonly state: OpenClawTranslateState;
  private connection!: GatewayConnection;
  /** The hold on a local gateway (shared or this session's own); released on close or loss. */
  private lease: GatewayLease | undefined;

  constructor(
    private readonly spec: SessionSpec,
    private readonly options: OpenClawSessionOptions,
    sessionKey: string,
  ) {
    this.nativeSessionId = sessionKey;
    this.state = createOpenClawTranslateState(sessionKey);
    this.chassis = new SessionChassis<RunPlan>(this, {
      harness: 'openclaw',
      displayName: 'OpenClaw',
      sessionId: this.id,
      // OpenClaw 2026.9.6 has no structured output: the chassis asks for JSON and validates the reply.
      structuredOutput: 'emulated',
      spec,
    });
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.chassis.events;
  }

  private get stream() {
    return this.chassis.stream;
  }

  private get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_OPENCLAW_TIMEOUT_MS;
  }

  async start(
    endpoint: { url: string; token?: string },
    lease: GatewayLease | undefined,
    binary: DiscoveredBinary | undefined,
  ) {
    this.lease = lease;
    const gateway: LocalGateway | undefined = lease?.gateway;
    this.connection = new GatewayConnection({
      url: endpoint.url,
      ...(endpoint.token ? { token: endpoint.token } : {}),
      requestTimeoutMs: this.requestTimeoutMs,
      connectTimeoutMs: this.options.connectTimeoutMs ?? 180_000,
      ...(this.options.tap ? { tap: this.options.tap } : {}),
      onEvent: (event, at) => this.onEvent(event, at),
      onStray: (frame, at) => {
        this.stream.emit(
          { type: 'passthrough', frame, reason: 'unparsable' },
          { at, native: { source: OPENCLAW_SOURCE, frame } },
        );
      },
      onClose: (error) => void this.onConnectionLost(error, gateway),
    });
    gateway?.process.exited.then(() => {
      if (!this.chassis.isClosed)
        this.onLost(new ReinsError('process_exited', gateway.process.describeExit(), { harness: 'openclaw' }));
    });
    try {
      const opening = this.connection.open();
      const hello = gateway
        ? await Promise.race([
            opening,
            gateway.process.exited.then(() => {
              throw new ReinsError('process_exited', gateway.process.describeExit(), {
                harness: 'openclaw',
                operation: 'start',
              });
            }),
          ])
        : await opening;
      if (this.spec.resume && !(await this.keyExists(this.nativeSessionId))) {
        throw new ReinsError(
          'resume_failed',
          `The OpenClaw gateway has no session ${this.nativeSessionId}; refusing a silent fresh start.`,
          { harness: 'openclaw', operation: 'resume' },
        );
      }
      this.stream.emit({
        type: 'session.started',
        cwd: this.spec.cwd,
        ...(binary ? { binaryPath: binary.path } : {}),
        ...(hello.server?.version ? { harnessVersion: hello.server.version } : {}),
        ...(this.spec.model ? { model: this.spec.model } : {}),
      });
      this.stream.emit({ type: 'session.updated', nativeSessionId: this.nativeSessionId });
      if (this.spec.model) await this.setModel(this.spec.model);
      if (this.spec.effort) await this.setEffort(this.spec.effort);
      this.stream.emit({ type: 'session.status', status: 'idle' });
    } catch (error) {
      this.chassis.markClosing('start failed');
      await this.connection.close();
      await lease?.release();
      throw error;
    }
  }

  private async keyExists(key: string): Promise<boolean> {
    const listed = await this.connection.request<{ sessions?: { key?: string }[] }>('sessions.list', { limit: 1000 });
    return (listed.sessions ?? []).some((row) => row.key === key);
  }

  private onEvent(frame: GatewayEvent, at: number): void {
    const native = { source: OPENCLAW_SOURCE, method: frame.event, frame };
    const [translation] = this.chassis.translate(native, at, () => [translateOpenClawEvent(this.state, frame)]);
    if (!translation) return;
    for (const payload of translation.events) this.stream.emit(payload, { at, native });
    if (translation.terminal) void this.finishRun(translation.terminal, { at, native });
  }

  /** The run ended: read its usage from the transcript, then the turn gets its one terminal. */
  private async finishRun(terminal: OpenClawTerminal, meta: { at: number; native: ReinsEvent['native'] }) {
    let usage: ReturnType<typeof openClawRunUsage>;
    try {
      const history = await this.connection.request<{ messages?: unknown[] }>(
        'chat.history',
        { sessionKey: this.nativeSessionId, limit: 50 },
        Math.min(this.requestTimeoutMs, USAGE_TIMEOUT_MS),
      );
      usage = openClawRunUsage(history.messages ?? [], terminal.runId);
    } catch {
      usage = undefined; // absent, not zero
    }
    // A run the chassis already ended (stalled, interrupt grace) has another run id than the running turn.
    const turn = this.chassis.running;
    if (!turn || turn.plan.runId !== terminal.runId) return;
    if (usage) this.stream.emit({ type: 'usage.updated', ...usage });
    this.stream.emit({ type: 'session.status', status: 'idle' });
    this.state.runId = undefined;
    this.chassis.complete(
      turn,
      {
        outcome: terminal.outcome,
        ...(usage ? { usage } : {}),
        ...(terminal.stopReason ? { stopReason: terminal.stopReason } : {}),
      },
      meta,
    );
  }

  /**
   * The socket dropped. On a local gateway that is usually its process ending (the socket closes a
   * moment before the exit is seen): wait briefly for it, so that every session on the gateway ends
   * with the same process_exited error carrying its stderr tail.
   */
  private async onConnectionLost(error: ReinsError, gateway: LocalGateway | undefined): Promise<void> {
    if (gateway && !gateway.process.hasExited) {
      await Promise.race([gateway.process.exited, new Promise((resolve) => setTimeout(resolve, EXIT_WAIT_MS))]);
    }
    if (gateway?.process.hasExited) {
      this.onLost(new ReinsError('process_exited', gateway.process.describeExit(), { harness: 'openclaw' }));
    } else this.onLost(error);
  }

  private onLost(error: ReinsError): void {
    if (this.chassis.isClosed) return;
    this.chassis.markClosing(error.message);
    void this.connection.close();
    void this.lease?.release();
    this.chassis.end('process_exited', error.toInfo());
  }

  // ---- TurnHost: how a turn reaches OpenClaw ---------------------------------------------------

  planTurn(input: TurnInput): RunPlan {
    if (input.images?.length) {
      throw new ReinsError('unsupported_capability', 'Reins does not send images to OpenClaw yet.', {
        harness: 'openclaw',
        operation: 'send',
      });
    }
    return { runId: randomUUID() };
  }

  async beginTurn(turn: ChassisTurn<RunPlan>): Promise<void> {
    beginOpenClawRun(this.state, turn.plan.runId);
    await this.connection.request('chat.send', {
      sessionKey: this.nativeSessionId,
      message: turn.prompt.text,
      idempotencyKey: turn.plan.runId,
    });
  }

  /** The gateway's own queue mode "steer" merges the message into the running run. */
  async steerTurn(_turn: ChassisTurn<RunPlan>, input: TurnInput): Promise<boolean> {
    await this.connection.request('chat.send', {
      sessionKey: this.nativeSessionId,
      message: input.text,
      idempotencyKey: randomUUID(),
      queueMode: 'steer',
    });
    return true;
  }

  async interruptTurn(turn: ChassisTurn<RunPlan>): Promise<void> {
    this.state.interruptRequested = true;
    await this.connection.request('chat.abort', { sessionKey: this.nativeSessionId, runId: turn.plan.runId });
  }

  // ---- Session ---------------------------------------------------------------------------------

  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    return this.chassis.send(input, options);
  }

  interrupt(): Promise<void> {
    return this.chassis.interrupt();
  }

  async setModel(model: string): Promise<SettingChange> {
    this.chassis.assertOpen('setModel', this.nativeSessionId);
    try {
      await this.connection.request('sessions.patch', { key: this.nativeSessionId, model });
    } catch (error) {
      const reinsError = ReinsError.from(error, 'protocol_error', { harness: 'openclaw' });
      if (reinsError.code === 'invalid_input' || /model/i.test(reinsError.message)) {
        throw unsupportedModelError(model, reinsError.message, { harness: 'openclaw', operation: 'setModel' });
      }
      throw reinsError;
    }
    this.stream.emit({ type: 'session.updated', model });
    return { applied: this.chassis.running ? 'next_turn' : 'live' };
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    this.chassis.assertOpen('setEffort', this.nativeSessionId);
    await this.connection.request('sessions.patch', { key: this.nativeSessionId, thinkingLevel: effort });
    this.stream.emit({ type: 'session.updated', effort });
    return { applied: this.chassis.running ? 'next_turn' : 'live' };
  }

  async respondToPermission(_requestId: string, _decision: PermissionDecision): Promise<void> {
    throw new ReinsError(
      'unsupported_capability',
      'Reins does not surface OpenClaw approvals yet; its tools ran without prompts in 2026.9.6.',
      { harness: 'openclaw', operation: 'respondToPermission' },
    );
  }

  /** Async: a refusal (checkpoints off) rejects the promise rather than throwing at the call. */
  async diff(turnId?: string): Promise<SessionDiff> {
    return sessionDiff(this.chassis, 'openclaw', turnId);
  }

  /** The files go back; the conversation stays (the gateway has no way to drop a run from a session key). */
  async revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    return sessionRevert(this.chassis, 'openclaw', turnId, options, filesOnly);
  }

  async close(): Promise<void> {
    const wasOpen = !this.chassis.isClosed;
    this.chassis.markClosing('closed by request');
    if (wasOpen) await this.connection.close();
    await this.lease?.release();
    this.chassis.end('requested');
  }
}
