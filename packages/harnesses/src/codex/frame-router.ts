// Codex's notifications on their way into a session's event stream (docs/architecture/contract.md,
// "Turn rules"): the turn lifecycle frames are matched to the chassis's running turn by Codex's native
// turn ids, a late frame of an abandoned turn stays native, and everything else goes to translate.ts.
import { isRecord, type NativeFrame } from '@reins/core';
import type { SessionChassis } from '../runtime/chassis/index.js';
import type { CodexApprovals } from './approvals.js';
import type { CodexMcpServers } from './mcp.js';
import { type NotificationFrame, type Translated, type TranslateState, translateNotification } from './translate.js';
import type { CodexTurnPlan } from './turn-plan.js';
import { type NativeTurns, turnOutcome } from './turns.js';
import type { Turn } from './wire.js';

/** What the router reads of its session. */
export interface FrameRouterHost {
  readonly chassis: SessionChassis<CodexTurnPlan>;
  readonly approvals: CodexApprovals;
  readonly mcp: CodexMcpServers;
  readonly state: TranslateState;
  readonly turns: NativeTurns<CodexTurnPlan>;
  /** The session's thread, once opened. */
  threadId(): string | undefined;
}

export class CodexFrameRouter {
  constructor(private readonly host: FrameRouterHost) {}

  private get chassis(): SessionChassis<CodexTurnPlan> {
    return this.host.chassis;
  }

  private get stream() {
    return this.host.chassis.stream;
  }

  /** One function for every frame (no closure per frame); `native.frame` is the notification. */
  readonly translateFrame = (native: NativeFrame, at: number): never[] => {
    const frame = native.frame as NotificationFrame;
    for (const translated of this.route(frame, native, at)) this.emitTranslated(translated, native, at);
    return NOTHING;
  };

  /** The turn lifecycle is the adapter's; everything else is translate.ts's. */
  private route(frame: NotificationFrame, native: NativeFrame, at: number): Translated[] {
    const params = isRecord(frame.params) ? frame.params : {};
    const mainThread = params.threadId === undefined || params.threadId === this.host.threadId();
    if (mainThread && this.host.turns.isAbandoned(params.turnId)) {
      return [untouched(frame)]; // a late frame of a turn the chassis already ended
    }
    switch (frame.method) {
      case 'turn/started':
        if (mainThread && this.host.turns.started(params.turn, this.chassis.running)) return [];
        return [untouched(frame)];
      case 'turn/completed':
        if (mainThread && this.onTurnCompleted(params.turn, native, at)) return [];
        return [untouched(frame)];
      case 'serverRequest/resolved':
        this.host.approvals.withdrawn(params.requestId);
        break;
      case 'mcpServer/startupStatus/updated': {
        // A subagent's thread starts its own servers: only this thread's (or the process's) count.
        const ours =
          params.threadId === null || params.threadId === undefined || this.host.threadId() === undefined || mainThread;
        const failed = ours ? this.host.mcp.observe(params) : undefined;
        if (failed) {
          const { message, ...data } = failed;
          return [{ payload: { type: 'notice', kind: 'warning', message, data } }];
        }
        break;
      }
      default:
        break;
    }
    return translateNotification(this.host.state, frame);
  }

  /** Ends the running turn when the frame is its own terminal; false for any other turn's. */
  private onTurnCompleted(turn: unknown, native: NativeFrame, at: number): boolean {
    const running = this.host.turns.completed(turn, this.chassis.running);
    if (!running) return false;
    const strict = running.turn.plan.strict;
    return this.chassis.complete(
      running.turn,
      { outcome: turnOutcome(turn as Turn, running.model), ...(running.usage ? { usage: running.usage } : {}) },
      { native, at },
      {
        result: running.lastAgentText === undefined ? undefined : { text: running.lastAgentText },
        ...(strict ? { restore: strict.restore } : {}),
      },
    );
  }

  private emitTranslated(translated: Translated, native: NativeFrame, at: number): void {
    const payload = translated.payload;
    const ownThread = translated.parentItemId === undefined;
    const running = this.host.turns.running(this.chassis.running);
    if (payload.type === 'usage.updated' && running && ownThread) {
      const { type: _type, ...usage } = payload;
      running.usage = usage;
    }
    if (payload.type === 'item.started' || payload.type === 'item.completed') {
      if (payload.item.kind === 'user_message' && ownThread) {
        // Codex echoes the user's input as a userMessage item (0.169.0, 0.171.0; a steer gets one too).
        // The chassis gave the turn its user_message already (with clientMessageId), so the echo
        // stays native: one user_message per message, never two.
        this.stream.emit(untouched(native.frame).payload, { native, at });
        return;
      }
      if (payload.type === 'item.completed' && payload.item.kind === 'agent_message' && running && ownThread) {
        running.lastAgentText = payload.item.text;
      }
    }
    // A literal per case, not a conditional spread: this runs for every frame.
    const parentItemId = translated.parentItemId;
    this.stream.emit(payload, parentItemId === undefined ? { native, at } : { native, at, parentItemId });
  }
}

/** What the frame callback hands back to the chassis: everything went out through the stream already. */
const NOTHING: never[] = [];

/** A frame Reins understood and deliberately keeps native (no reason: nothing is unknown about it). */
function untouched(frame: unknown): Translated {
  return { payload: { type: 'passthrough', frame } };
}
