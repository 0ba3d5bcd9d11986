// Which turn a Claude Code frame belongs to. `result` frames carry no turn id, but every CLI turn
// starts with `system/init` (2.1.197, 2.1.332), and the CLI runs its turns one after the other. So a
// turn Reins ended itself (stalled, no terminal within the interrupt grace) still owes its `result`
// until the CLI starts another turn: until then, main-thread frames are that turn's leftovers and its
// `result` ends nothing. If the abandoned turn's own init had not come yet, the next init is its own.
import { isRecord } from '@reins/core';

/** `type/subtype` (`system/init`, `result/success`) or `type`. */
export function methodOf(frame: unknown): string | undefined {
  if (!isRecord(frame) || typeof frame.type !== 'string') return undefined;
  return typeof frame.subtype === 'string' ? `${frame.type}/${frame.subtype}` : frame.type;
}

/** A frame of the main thread's turn (not a subagent's, which carry parent_tool_use_id; not news of background tasks). */
export function inMainTurn(frame: unknown, method: string | undefined): boolean {
  if (!isRecord(frame) || typeof frame.parent_tool_use_id === 'string') return false;
  return !method?.startsWith('system/task_') && method !== 'system/background_tasks_changed';
}

/** A frame that shows the main thread is in a turn: its init, the model's output, a tool result, a result. */
export function startsMainTurn(frame: unknown, method: string | undefined): boolean {
  if (!isRecord(frame)) return false;
  if (method === 'system/init' || frame.type === 'result') return true;
  if (typeof frame.parent_tool_use_id === 'string') return false;
  if (frame.type === 'stream_event' || frame.type === 'assistant') return true;
  const content = frame.type === 'user' && isRecord(frame.message) ? frame.message.content : undefined;
  return Array.isArray(content) && content.some((block) => isRecord(block) && block.type === 'tool_result');
}

interface OwedResult {
  turnId: string;
  /** Its system/init came already: the next init means the CLI moved on. */
  initSeen: boolean;
  settle: () => void;
}

/** The results the CLI still owes for turns Reins ended itself. */
export class OwedResults {
  private readonly owed: OwedResult[] = [];
  /** The running turn's system/init arrived. */
  private initSeen = false;

  /** Main-thread frames now belong to an abandoned turn. */
  get pending(): boolean {
    return this.owed.length > 0;
  }

  /** A turn began (Reins' own, or one the CLI started; `initSeen` when its init was what showed it). */
  began(initSeen: boolean): void {
    this.initSeen = initSeen;
  }

  /** A system/init arrived. Returns true when an abandoned turn was given up (the CLI moved on without its result). */
  onInit(turnRunning: boolean): boolean {
    let gaveUp = false;
    while (this.owed[0]?.initSeen) {
      this.owed.shift()?.settle();
      gaveUp = true;
    }
    const next = this.owed[0];
    if (next) next.initSeen = true;
    else if (turnRunning) this.initSeen = true;
    return gaveUp;
  }

  /** Reins ended this turn itself; resolves once the CLI settled it (its result, or the CLI moved on). */
  abandoned(turnId: string): Promise<void> {
    return new Promise((settle) => this.owed.push({ turnId, initSeen: this.initSeen, settle }));
  }

  /** The owed result arrived; returns the turn it belonged to. */
  settleOne(): string | undefined {
    const owed = this.owed.shift();
    owed?.settle();
    return owed?.turnId;
  }

  /** The process is gone: it owes nothing any more. */
  settleAll(): void {
    while (this.owed.length > 0) this.settleOne();
  }
}
