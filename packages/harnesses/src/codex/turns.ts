// Codex's own turns beside the chassis's: each delivered turn learns its native id (from the
// turn/start answer or turn/started), and the ids of turns the chassis gave up on (stalled, or no
// terminal within the interrupt grace) are remembered, so that whatever Codex still sends about such
// a turn (items, deltas, its late turn/completed) never lands in, or ends, a later turn.
import { isRecord, type TurnOutcome, type Usage } from '@reins/core';
import type { ChassisTurn } from '../runtime/chassis/index.js';
import { outcomeOf } from './translate.js';
import type { TokenUsageBreakdown, Turn } from './wire.js';

/** How many native ids of abandoned turns a session remembers (they are few; the bound is for safety). */
const ABANDONED_MEMORY = 64;

/** What Codex told the adapter about one delivered turn. */
export class DeliveredTurn<Plan = unknown> {
  /** Codex's own turn id, from the turn/start answer or turn/started. */
  id: string | undefined;
  /** The chassis ended this turn itself: whatever Codex still sends about it is history. */
  abandoned = false;
  usage: Usage | undefined;
  /** The last agent message of the session's own thread (a subagent's does not count). */
  lastAgentText: string | undefined;
  /** Settles once Codex answered turn/start (either way). */
  readonly accepted: Promise<void>;
  private markAccepted: () => void = () => {};
  /** Settles once Codex sent its own terminal for the turn (or the process ended). */
  readonly ended: Promise<void>;
  markEnded: () => void = () => {};

  constructor(
    readonly turn: ChassisTurn<Plan>,
    /** The model the turn runs on, for unsupported_model messages. */
    readonly model: string | undefined,
  ) {
    this.accepted = new Promise<void>((resolve) => {
      this.markAccepted = resolve;
    });
    this.ended = new Promise<void>((resolve) => {
      this.markEnded = resolve;
    });
  }

  settle(id?: string): void {
    if (id !== undefined) this.id ??= id;
    this.markAccepted();
  }
}

export class NativeTurns<Plan = unknown> {
  /** The turn last delivered to Codex. */
  private last: DeliveredTurn<Plan> | undefined;
  private readonly abandonedIds = new Set<string>();
  /** Codex's ids of the turns that ended, by chassis turn id (Session.revert names a turn by the latter). */
  private readonly nativeIds = new Map<string, string>();

  deliver(turn: ChassisTurn<Plan>, model: string | undefined): DeliveredTurn<Plan> {
    this.last = new DeliveredTurn(turn, model);
    return this.last;
  }

  /** The delivered turn for `turn`, if it is the last one delivered. */
  of(turn: ChassisTurn<Plan>): DeliveredTurn<Plan> | undefined {
    return this.last?.turn === turn ? this.last : undefined;
  }

  /** The delivered turn when it is the one the chassis is running (and not given up on). */
  running(chassisRunning: ChassisTurn<Plan> | undefined): DeliveredTurn<Plan> | undefined {
    const last = this.last;
    return chassisRunning && last?.turn === chassisRunning && !last.abandoned ? last : undefined;
  }

  /** Codex answered turn/start (`id` undefined: it failed, or the answer named no turn). */
  accepted(delivered: DeliveredTurn<Plan>, id: string | undefined): void {
    delivered.settle(id);
    if (delivered.abandoned && delivered.id) this.remember(delivered.id);
  }

  /** The chassis gave up on `turn`; resolves once Codex ended it too. */
  abandon(turn: ChassisTurn<Plan>): Promise<void> | undefined {
    const delivered = this.of(turn);
    if (!delivered) return undefined;
    delivered.abandoned = true;
    if (delivered.id) this.remember(delivered.id);
    return delivered.ended;
  }

  isAbandoned(nativeTurnId: unknown): boolean {
    // Asked for every frame; the size test spares hashing a fresh id string when nothing was abandoned.
    return this.abandonedIds.size > 0 && typeof nativeTurnId === 'string' && this.abandonedIds.has(nativeTurnId);
  }

  /** turn/started: learns the running turn's native id; false when the frame is about another turn. */
  started(raw: unknown, chassisRunning: ChassisTurn<Plan> | undefined): boolean {
    const running = this.running(chassisRunning);
    if (!running || !isRecord(raw) || typeof raw.id !== 'string' || this.isAbandoned(raw.id)) return false;
    running.id ??= raw.id;
    return running.id === raw.id;
  }

  /**
   * turn/completed: the running turn it ends, or undefined when it is another turn's (the late
   * terminal of an abandoned turn releases the next turn, but ends nothing).
   */
  completed(raw: unknown, chassisRunning: ChassisTurn<Plan> | undefined): DeliveredTurn<Plan> | undefined {
    if (!isRecord(raw) || typeof raw.id !== 'string') return undefined;
    if (this.isAbandoned(raw.id)) {
      if (this.last?.id === raw.id) this.last.markEnded();
      return undefined;
    }
    const running = this.running(chassisRunning);
    if (!running || (running.id !== undefined && running.id !== raw.id)) return undefined;
    running.id = raw.id;
    running.markEnded();
    this.nativeIds.set(running.turn.turnId, raw.id);
    return running;
  }

  nativeIdOf(turnId: string): string | undefined {
    return this.nativeIds.get(turnId);
  }

  /** The app-server is gone: nothing is waited for any more. */
  exited(): void {
    this.last?.markEnded();
  }

  private remember(nativeTurnId: string): void {
    this.abandonedIds.add(nativeTurnId);
    if (this.abandonedIds.size > ABANDONED_MEMORY) {
      const oldest = this.abandonedIds.values().next().value;
      if (oldest !== undefined) this.abandonedIds.delete(oldest);
    }
  }
}

/**
 * translate.ts's outcome; when Codex ends a turn in a form Reins cannot read (a status a newer Codex
 * added, a broken error), the turn still ends, failed with a clear protocol_error: the frame says
 * the turn is over, so waiting for the stall watchdog would help nobody.
 */
export function turnOutcome(turn: Turn, model: string | undefined): TurnOutcome {
  try {
    return outcomeOf(turn, model);
  } catch {
    const status = typeof turn.status === 'string' ? turn.status : JSON.stringify(turn.status);
    return {
      status: 'failed',
      error: {
        code: 'protocol_error',
        message: `Codex ended the turn (status ${status}) in a form Reins could not read.`,
        data: { status: turn.status ?? null },
      },
    };
  }
}

/** A fresh thread's token total. */
export function zeroBreakdown(): TokenUsageBreakdown {
  return {
    totalTokens: 0,
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: 0,
    reasoningOutputTokens: 0,
  };
}
