// Claude Code's native frames as Reins events, and which turn each belongs to (`result` frames carry
// no turn id; docs/architecture/contract.md, "Events"):
// - A turn Reins ended itself still owes its `result`, which ends nothing (turns.ts).
// - A main-thread frame while no turn runs is a turn Claude Code started by itself (2.1.332: to answer
//   a background task's notification): it becomes its own turn (chassis.beginHarnessTurn).
// - 2.1.332: a `result` with `queued_turn_count > 0` answers a turn the CLI ran before the message
//   Reins wrote (still queued in the CLI): the running turn goes on.
// - Background subagents outlive their turn: their items stay open past its end and complete when the
//   task does; what they do after it carries turnId null (protocols/stream-json/tasks.ts).
// - 2.1.332's own state (`system/session_state_changed`) is the session's status (status.ts).
// Nothing one frame does may end the session: a frame whose handling throws becomes a passthrough.
import {
  type EmitMeta,
  type ErrorInfo,
  isRecord,
  type NativeFrame,
  type PayloadOf,
  type SessionEventStream,
} from '@reins/core';
import {
  liveBackgroundTasks,
  openBackgroundItems,
  resetTurnState,
  type TranslationState,
  takeEndedTasks,
} from '../protocols/stream-json/index.js';
import type { ChassisTurn, CommitEmission, FrameMeta, FrameSink, SessionChassis } from '../runtime/chassis/index.js';
import type { ClaudeConversation } from './conversation.js';
import type { ClaudeMcpWatch } from './mcp-watch.js';
import { type ClaudeStatus, harnessStateOf } from './status.js';
import { CLAUDE_SOURCE, translateFrameInto } from './translate.js';
import { inMainTurn, methodOf, type OwedResults, startsMainTurn } from './turns.js';
import type { SDKMessage, SDKUserMessage } from './wire.js';

/** A sent turn's message for the CLI (made at send time); a turn Claude Code started itself has none. */
export type Plan = SDKUserMessage | undefined;

/** The session's parts the frames act on (session.ts owns them). */
export interface FrameHost {
  chassis: SessionChassis<Plan>;
  translation: TranslationState;
  owed: OwedResults;
  status: ClaudeStatus;
  mcp: ClaudeMcpWatch;
  conversation: ClaudeConversation;
  /** spec.ephemeral: a completed turn is not written. */
  ephemeral: boolean;
}

export class ClaudeFrames {
  /** createSession returned: a `result` with no turn is no longer a launch failure. */
  opened = false;
  /** The failure a `result` frame reported before the session opened (e.g. an unknown --resume id). */
  earlyFailure: ErrorInfo | undefined;
  /** The frame being committed belongs to a turn Reins already ended; its `result` ended a turn. */
  private stale = false;
  private ended = false;

  constructor(private readonly host: FrameHost) {}

  private get stream(): SessionEventStream {
    return this.host.chassis.stream;
  }

  onMessage(message: SDKMessage): void {
    const at = Date.now();
    const frame: unknown = message;
    const method = methodOf(frame);
    const native: NativeFrame = { source: CLAUDE_SOURCE, ...(method ? { method } : {}), frame };
    try {
      this.route(frame, method, native, at);
    } catch {
      // Nothing one frame does may end the session (docs/architecture/contract.md, principle 8).
      this.stream.emit({ type: 'passthrough', frame, reason: 'untranslatable' }, { native, at });
    }
  }

  private route(frame: unknown, method: string | undefined, native: NativeFrame, at: number): void {
    // Claude Code starts every turn with system/init: an abandoned turn whose init came already is over,
    // and what the translation held for it (its tools, the interrupt flag) is forgotten too.
    if (method === 'system/init' && this.host.owed.onInit(this.host.chassis.running !== undefined)) {
      resetTurnState(this.host.translation);
    }
    if (method === 'system/init') this.host.mcp.onInit(frame);
    // 2.1.332: the CLI's own state is the session's status (status.ts); the frame says nothing else.
    const state = harnessStateOf(frame);
    if (state) {
      this.host.chassis.activity();
      this.host.status.harness(state, { native, at });
      return;
    }
    // Until the CLI starts another turn, main-thread frames belong to a turn Reins already ended.
    const stale = this.host.owed.pending && inMainTurn(frame, method);
    if (!stale && this.opened && !this.host.chassis.running && startsMainTurn(frame, method)) {
      this.beginHarnessTurn(native, at, method);
    }
    const base: FrameMeta = { native, at };
    // The frame's own flags for emitOne, kept across a frame translated while this one commits.
    const outerStale = this.stale;
    const outerEnded = this.ended;
    this.stale = stale;
    this.ended = false;
    this.host.chassis.translateInto(frame, base, this.translateOne, this.emitOne);
    const ended = this.ended;
    this.stale = outerStale;
    this.ended = outerEnded;
    if (isRecord(frame) && frame.type === 'result' && !ended) this.unreadableResult(base, stale);
  }

  private readonly translateOne = (frame: unknown, sink: FrameSink): void =>
    translateFrameInto(this.host.translation, frame, sink);

  /** One committed event of the frame route() translates (chassis.translateInto). */
  private readonly emitOne: CommitEmission = (payload, parentItemId, background, base) => {
    const stale = this.stale;
    if (payload.type === 'turn.completed') this.ended = true;
    const meta: EmitMeta = {
      ...base,
      ...(parentItemId !== undefined ? { parentItemId } : {}),
      ...(background || stale ? { background: true } : {}),
    };
    switch (payload.type) {
      case 'turn.completed':
        this.onResult(payload, meta, stale, base.native?.frame);
        return;
      case 'session.status':
        // The background-task level: the session's status follows the turn and the live tasks, unless
        // the CLI reports its own state (then the frame is shown as it is).
        if (this.host.status.fromHarness) this.stream.emit({ type: 'passthrough', frame: meta.native?.frame }, meta);
        else this.emitStatus(meta);
        return;
      case 'session.updated':
        if (payload.nativeSessionId) this.host.conversation.adopt(payload.nativeSessionId);
        break;
      default:
        break;
    }
    this.stream.emit(payload, meta);
  };

  private onResult(payload: PayloadOf<'turn.completed'>, meta: EmitMeta, stale: boolean, frame: unknown): void {
    if (stale) {
      const owed = this.host.owed.settleOne();
      this.stream.emit(
        {
          type: 'notice',
          kind: 'info',
          message: `Claude Code finished ${owed ?? 'a turn'} after Reins had ended it; this result ends nothing.`,
          data: { turnId: owed, outcome: payload.outcome.status },
        },
        meta,
      );
      return;
    }
    const turn = this.host.chassis.running;
    if (!turn) {
      // Before the session opened this is the launch failing (2.1.197: an unknown --resume id).
      if (payload.outcome.status === 'failed') {
        if (!this.opened) this.earlyFailure = payload.outcome.error;
        this.stream.emit({ type: 'error', ...payload.outcome.error, fatal: !this.opened }, meta);
      } else {
        this.stream.emit({ type: 'notice', kind: 'info', message: 'Claude Code ended work outside any turn.' }, meta);
      }
      return;
    }
    const queued = isRecord(frame) && typeof frame.queued_turn_count === 'number' ? frame.queued_turn_count : 0;
    if (queued > 0) {
      this.stream.emit(
        {
          type: 'notice',
          kind: 'info',
          message: 'Claude Code finished work it ran before this turn; the turn goes on.',
          data: { queuedTurnCount: queued },
        },
        meta,
      );
      return;
    }
    this.finish(turn, payload, meta);
  }

  /** A `result` whose translation gave no terminal: it still ends the CLI's turn, so it ends Reins' too. */
  private unreadableResult(meta: EmitMeta, stale: boolean): void {
    const error: ErrorInfo = {
      code: 'protocol_error',
      message: 'Claude Code ended the turn with a result Reins could not read.',
    };
    this.onResult({ type: 'turn.completed', outcome: { status: 'failed', error } }, meta, stale, undefined);
  }

  private finish(turn: ChassisTurn<Plan>, payload: PayloadOf<'turn.completed'>, meta: EmitMeta): void {
    // Background work goes on past this turn: its items stay open.
    for (const id of openBackgroundItems(this.host.translation)) this.stream.keepAfterTurn(id);
    const { type: _type, ...completion } = payload;
    const raw = completion.structuredOutput;
    this.host.chassis.complete(turn, completion, meta, { result: raw === undefined ? undefined : { value: raw } });
    if (!this.host.ephemeral) this.host.conversation.turnWritten();
    this.emitStatus({});
  }

  /** Reins' reading of the status where the CLI reports none (2.1.197): the turn and the live tasks. */
  private emitStatus(meta: EmitMeta): void {
    const busy = this.host.chassis.running !== undefined || liveBackgroundTasks(this.host.translation.tasks) > 0;
    this.host.status.inferred(busy ? 'running' : 'idle', meta);
  }

  private beginHarnessTurn(native: NativeFrame, at: number, method: string | undefined): void {
    const ended = takeEndedTasks(this.host.translation.tasks);
    const text = ended.length > 0 ? ended.join('\n') : 'Claude Code started a turn by itself.';
    const turn = this.host.chassis.beginHarnessTurn({ text }, { origin: 'notification', meta: { native, at } });
    if (!turn) return;
    this.host.owed.began(method === 'system/init');
    this.host.status.inferred('running');
  }
}
