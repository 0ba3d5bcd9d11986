// The event reducer of one session: the daemon's normalized events (docs/architecture/contract.md,
// "Event types") folded into rows a person reads. Deltas grow their item until item.completed brings
// the truth; events with a parentItemId go into the lane of the tool call that spawned them (subagent
// lanes, nested to any depth); work still running when its turn ended is marked background. Every
// event is applied once: a seq at or below the last one applied is ignored, so a replay after a
// reconnect or a reload never duplicates a row. Rows are immutable: a changed row is a new object
// (and so are its ancestors), so views can skip every row that did not change.
import { type ErrorInfo, type Item, isRecord, type ReinsEvent, type Usage } from '@reins/core';
import {
  closedText,
  type NoteRow,
  newItemRow,
  type PermissionRow,
  type Row,
  type SessionFacts,
  startedText,
  type TranscriptView,
  type UserRow,
  updatedItemRow,
} from './rows.js';

export type * from './rows.js';

export class Transcript {
  private readonly rows = new Map<string, Row>();
  private readonly top: string[] = [];
  private readonly children = new Map<string, string[]>();
  private readonly parentOf = new Map<string, string>();
  private readonly dirty = new Set<string>();
  private topChanged = true;
  private cachedRows: Row[] = [];
  private readonly openTurns: string[] = [];
  private readonly endedTurns = new Set<string>();
  private readonly deliveries = new Map<string, UserRow['delivery']>();
  /** clientMessageId -> the key of its user row. */
  private readonly userRowOf = new Map<string, string>();
  /** turnId -> keys of its tool rows (to mark the ones still running as background when it ends). */
  private readonly toolsByTurn = new Map<string, string[]>();
  private readonly permissions = new Map<string, string>();
  /** Ids of the tool calls a permission request named (it may come before or after the call's row). */
  private readonly askedItems = new Set<string>();
  /** turn, lane, kind and message of a notice -> its row (repeats fold into it). */
  private readonly noticeRows = new Map<string, string>();
  private facts: SessionFacts = {};
  private usage: Usage = {};
  private rateLimit: TranscriptView['rateLimit'];
  private seq = 0;
  private notes = 0;
  /** session.started events so far: the ones after the first are a new process resuming the conversation. */
  private starts = 0;
  private passthroughs = 0;
  /** Every event applied, in order (the debug panel reads them with their native frames). */
  readonly events: ReinsEvent[] = [];

  get lastSeq(): number {
    return this.seq;
  }

  /** True once a user_message carrying this clientMessageId arrived. */
  hasClientMessage(clientMessageId: string): boolean {
    return this.userRowOf.has(clientMessageId);
  }

  /** Applies one event; false when it was already applied (seq at or below the last). */
  apply(event: ReinsEvent): boolean {
    if (event.seq <= this.seq) return false;
    this.seq = event.seq;
    this.events.push(event);
    this.reduce(event);
    return true;
  }

  /**
   * Applies a run of events in one pass (a replay batch), exactly as apply() one by one would: the
   * ones at or below the last seq are skipped, and consecutive deltas of one item grow its row once
   * (a 300-delta answer is one new row object, not 300). Returns the events applied.
   */
  applyAll(events: readonly ReinsEvent[]): ReinsEvent[] {
    const applied: ReinsEvent[] = [];
    let index = 0;
    while (index < events.length) {
      const event = events[index++] as ReinsEvent;
      if (event.seq <= this.seq) continue;
      this.seq = event.seq;
      this.events.push(event);
      applied.push(event);
      if (event.type !== 'item.delta') {
        this.reduce(event);
        continue;
      }
      let text = event.text;
      while (index < events.length) {
        const next = events[index] as ReinsEvent;
        if (next.seq <= this.seq) {
          index++;
          continue;
        }
        if (next.type !== 'item.delta' || next.itemId !== event.itemId || next.kind !== event.kind) break;
        text += next.text;
        this.seq = next.seq;
        this.events.push(next);
        applied.push(next);
        index++;
      }
      this.delta(text === event.text ? event : { ...event, text });
    }
    return applied;
  }

  /** Says how the daemon delivered the message with this clientMessageId (send's answer). */
  noteDelivery(clientMessageId: string, delivery: NonNullable<UserRow['delivery']>): void {
    this.deliveries.set(clientMessageId, delivery);
    const key = this.userRowOf.get(clientMessageId);
    const row = key !== undefined ? this.rows.get(key) : undefined;
    if (key !== undefined && row?.kind === 'user') this.put(key, { ...row, delivery });
  }

  /** Adds a line of the console's own at the end (e.g. "Model set: applies on the next turn"). */
  note(text: string, tone: NoteRow['tone'] = 'info'): void {
    const key = `note:${++this.notes}`;
    this.add({ kind: 'note', key, turnId: null, seq: this.seq, text, tone }, undefined);
  }

  /** session/revert undid `turnId` and every later turn: their checkpoint rows say so (no more Undo). */
  markReverted(turnId: string): void {
    const start = this.top.findIndex((key) => {
      const row = this.rows.get(key);
      return row?.kind === 'checkpoint' && row.turnId === turnId;
    });
    if (start < 0) return;
    for (const key of this.top.slice(start)) {
      const row = this.rows.get(key);
      if (row?.kind === 'checkpoint' && !row.reverted) this.put(key, { ...row, reverted: true });
    }
  }

  view(): TranscriptView {
    const pendingPermissions: PermissionRow[] = [];
    for (const key of this.permissions.values()) {
      const row = this.rows.get(key);
      if (row?.kind === 'permission' && !row.resolved) pendingPermissions.push(row);
    }
    return {
      rows: this.topRows(),
      facts: this.facts,
      usage: this.usage,
      runningTurnId: this.openTurns.at(-1),
      pendingPermissions,
      ...(this.rateLimit ? { rateLimit: this.rateLimit } : {}),
      lastSeq: this.seq,
      eventCount: this.events.length,
      passthroughCount: this.passthroughs,
    };
  }

  // ---- the reducer --------------------------------------------------------------------------------

  private reduce(event: ReinsEvent): void {
    const base = { turnId: event.turnId, seq: event.seq };
    switch (event.type) {
      case 'session.started':
        this.facts = {
          ...this.facts,
          cwd: event.cwd,
          ...(event.model !== undefined ? { model: event.model } : {}),
          ...(event.harnessVersion !== undefined ? { harnessVersion: event.harnessVersion } : {}),
          ...(event.binaryPath !== undefined ? { binaryPath: event.binaryPath } : {}),
        };
        delete this.facts.closed;
        this.add(
          {
            kind: 'session',
            key: `seq:${event.seq}`,
            ...base,
            event: 'started',
            text: startedText(event, this.starts++ > 0),
          },
          undefined,
        );
        return;
      case 'session.updated': {
        const { nativeSessionId, model, effort, title, mode } = event;
        this.facts = {
          ...this.facts,
          ...(nativeSessionId !== undefined ? { nativeSessionId } : {}),
          ...(model !== undefined ? { model } : {}),
          ...(effort !== undefined ? { effort } : {}),
          ...(title !== undefined ? { title } : {}),
          ...(mode !== undefined ? { mode } : {}),
        };
        return;
      }
      case 'session.status':
        this.facts = { ...this.facts, status: event.status };
        return;
      case 'session.closed':
        this.facts = { ...this.facts, closed: event.reason };
        // Whatever was still open ended with the process.
        this.openTurns.length = 0;
        this.add(
          {
            kind: 'session',
            key: `seq:${event.seq}`,
            ...base,
            event: 'closed',
            text: closedText(event.reason),
            ...(event.error ? { error: event.error } : {}),
          },
          undefined,
        );
        return;
      case 'turn.started':
        if (!this.openTurns.includes(event.turnId ?? '') && event.turnId) this.openTurns.push(event.turnId);
        return;
      case 'item.started':
      case 'item.completed':
        this.item(event.item, event, event.type === 'item.completed');
        return;
      case 'item.delta':
        this.delta(event);
        return;
      case 'permission.requested': {
        const key = `permission:${event.requestId}`;
        this.permissions.set(event.requestId, key);
        if (event.itemId !== undefined) {
          this.askedItems.add(event.itemId);
          const tool = this.rows.get(event.itemId);
          if (tool?.kind === 'tool') this.put(tool.key, { ...tool, asked: true });
        }
        this.add(
          {
            kind: 'permission',
            key,
            ...base,
            requestId: event.requestId,
            tool: event.tool,
            ...(event.input !== undefined ? { input: event.input } : {}),
            ...(event.itemId !== undefined ? { itemId: event.itemId } : {}),
            options: event.options,
          },
          event.parentItemId,
        );
        return;
      }
      case 'permission.resolved': {
        const key = this.permissions.get(event.requestId);
        const row = key ? this.rows.get(key) : undefined;
        if (key && row?.kind === 'permission')
          this.put(key, { ...row, resolved: { decision: event.decision, by: event.by } });
        return;
      }
      case 'usage.updated':
        this.usage = {
          ...this.usage,
          ...(event.turn ? { turn: event.turn } : {}),
          ...(event.total ? { total: event.total } : {}),
          ...(event.context ? { context: { ...this.usage.context, ...event.context } } : {}),
          ...(event.costUsd ? { costUsd: event.costUsd } : {}),
        };
        return;
      case 'notice':
        this.notice(event);
        return;
      case 'error': {
        const { code, message, retryable, data } = event;
        const error: ErrorInfo = {
          code,
          message,
          ...(retryable !== undefined ? { retryable } : {}),
          ...(data !== undefined ? { data } : {}),
        };
        this.add({ kind: 'error', key: `seq:${event.seq}`, ...base, error, fatal: event.fatal }, event.parentItemId);
        return;
      }
      case 'passthrough':
        this.passthroughs++;
        return;
      case 'turn.completed':
        this.turnCompleted(event);
        return;
      case 'checkpoint': {
        const { turnId, changes } = event;
        const row = { kind: 'checkpoint', key: `seq:${event.seq}`, ...base, turnId, changes } as const;
        this.add({ ...row, truncated: event.truncated === true, reverted: false }, undefined);
        return;
      }
      default: {
        // A newer daemon's event type: kept for the debug panel, not shown in the transcript.
        return;
      }
    }
  }

  private item(item: Item, event: ReinsEvent, completed: boolean): void {
    const existing = this.rows.get(item.id);
    if (item.kind === 'user_message' && item.clientMessageId) this.userRowOf.set(item.clientMessageId, item.id);
    if (existing) {
      this.put(item.id, updatedItemRow(existing, item, completed, this.turnEnded(existing.turnId)));
      return;
    }
    const row = newItemRow(item, { key: item.id, turnId: event.turnId, seq: event.seq });
    if (row.kind === 'tool' && this.askedItems.has(item.id)) row.asked = true;
    if (row.kind === 'tool' && event.turnId) {
      const tools = this.toolsByTurn.get(event.turnId) ?? [];
      tools.push(row.key);
      this.toolsByTurn.set(event.turnId, tools);
    }
    if (row.kind === 'user' && item.kind === 'user_message' && item.clientMessageId) {
      const delivery = this.deliveries.get(item.clientMessageId);
      if (delivery) row.delivery = delivery;
    }
    this.add(row, event.parentItemId);
  }

  private delta(event: Extract<ReinsEvent, { type: 'item.delta' }>): void {
    let row = this.rows.get(event.itemId);
    if (!row) {
      // A delta before its item.started: a placeholder the started or completed item replaces.
      if (event.kind !== 'text' && event.kind !== 'reasoning') return;
      const item: Item =
        event.kind === 'text'
          ? { kind: 'agent_message', id: event.itemId, status: 'running', text: '' }
          : { kind: 'reasoning', id: event.itemId, status: 'running', text: '' };
      row = newItemRow(item, { key: event.itemId, turnId: event.turnId, seq: event.seq });
      this.add(row, event.parentItemId);
    }
    if (!('item' in row) || row.item.status !== 'running') return; // the truth came already
    if ((row.kind === 'agent' && event.kind === 'text') || (row.kind === 'reasoning' && event.kind === 'reasoning')) {
      this.put(row.key, { ...row, item: { ...row.item, text: row.item.text + event.text } } as Row);
    } else if (row.kind === 'tool' && event.kind === 'tool_output') {
      this.put(row.key, { ...row, liveOutput: row.liveOutput + event.text });
    } else if (row.kind === 'tool' && event.kind === 'tool_input') {
      this.put(row.key, { ...row, liveInput: row.liveInput + event.text });
    }
  }

  private notice(event: Extract<ReinsEvent, { type: 'notice' }>): void {
    // The daemon says so when a session's process is gone (it went dormant): nothing of it runs any more.
    if (isRecord(event.data) && event.data.dormant !== undefined) this.openTurns.length = 0;
    // Codex reports its rate limits after nearly every turn: a status, a transcript row only once a limit is hit.
    if (event.kind === 'rate_limit' && !limitHit(event.data)) {
      this.rateLimit = { message: event.message, ...(event.data !== undefined ? { data: event.data } : {}) };
      return;
    }
    // The same notice again in the same turn (Codex repeats "The turn diff changed." per edit) is one row.
    const foldKey = `${event.turnId ?? ''}\u0000${event.parentItemId ?? ''}\u0000${event.kind}\u0000${event.message}`;
    const folded = this.noticeRows.get(foldKey);
    const previous = folded !== undefined ? this.rows.get(folded) : undefined;
    if (previous?.kind === 'notice' && (event.turnId !== null || this.top.at(-1) === previous.key)) {
      this.put(previous.key, { ...previous, count: previous.count + 1, data: event.data });
      return;
    }
    this.noticeRows.set(foldKey, `seq:${event.seq}`);
    this.add(
      {
        kind: 'notice',
        key: `seq:${event.seq}`,
        turnId: event.turnId,
        seq: event.seq,
        notice: event.kind,
        message: event.message,
        ...(event.data !== undefined ? { data: event.data } : {}),
        count: 1,
      },
      event.parentItemId,
    );
  }

  private turnCompleted(event: Extract<ReinsEvent, { type: 'turn.completed' }>): void {
    const turnId = event.turnId;
    if (turnId) {
      this.endedTurns.add(turnId);
      const index = this.openTurns.indexOf(turnId);
      if (index !== -1) this.openTurns.splice(index, 1);
      // Tool calls of this turn still running now run in the background (a harness's background subagent).
      for (const key of this.toolsByTurn.get(turnId) ?? []) {
        const row = this.rows.get(key);
        if (row?.kind === 'tool' && row.item.status === 'running' && !row.background) {
          this.put(key, { ...row, background: true });
        }
      }
      this.toolsByTurn.delete(turnId);
    }
    this.add(
      {
        kind: 'turn-end',
        key: `seq:${event.seq}`,
        turnId,
        seq: event.seq,
        outcome: event.outcome,
        ...(event.usage ? { usage: event.usage } : {}),
        ...(event.stopReason !== undefined ? { stopReason: event.stopReason } : {}),
      },
      event.parentItemId,
    );
  }

  private turnEnded(turnId: string | null): boolean {
    return turnId !== null && this.endedTurns.has(turnId);
  }

  // ---- rows and lanes -----------------------------------------------------------------------------

  /** Adds a row at the end of the top level, or at the end of its parent's lane when that is known. */
  private add(row: Row, parentItemId: string | undefined): void {
    const parent = parentItemId !== undefined ? this.rows.get(parentItemId) : undefined;
    this.rows.set(row.key, row);
    if (parent && parentItemId !== undefined) {
      const lane = this.children.get(parentItemId) ?? [];
      lane.push(row.key);
      this.children.set(parentItemId, lane);
      this.parentOf.set(row.key, parentItemId);
      this.markDirty(parentItemId);
    } else {
      this.top.push(row.key);
      this.topChanged = true;
    }
  }

  private put(key: string, row: Row): void {
    this.rows.set(key, row);
    const parent = this.parentOf.get(key);
    if (parent !== undefined) this.markDirty(parent);
    else this.topChanged = true;
  }

  /** The row's lane changed: it and every ancestor get new objects at the next view(). */
  private markDirty(key: string): void {
    for (let current: string | undefined = key; current !== undefined; current = this.parentOf.get(current)) {
      this.dirty.add(current);
    }
    this.topChanged = true;
  }

  private topRows(): Row[] {
    if (this.dirty.size > 0) {
      // Deepest first, so a parent's new lane holds its children's new objects.
      const ordered = [...this.dirty].sort((a, b) => this.depth(b) - this.depth(a));
      for (const key of ordered) {
        const row = this.rows.get(key);
        if (row?.kind !== 'tool') continue;
        const lane = (this.children.get(key) ?? []).map((child) => this.rows.get(child) as Row);
        this.rows.set(key, { ...row, lane });
      }
      this.dirty.clear();
    }
    if (this.topChanged) {
      this.cachedRows = this.top.map((key) => this.rows.get(key) as Row);
      this.topChanged = false;
    }
    return this.cachedRows;
  }

  private depth(key: string): number {
    let depth = 0;
    for (let current = this.parentOf.get(key); current !== undefined; current = this.parentOf.get(current)) depth++;
    return depth;
  }
}

/** A rate-limit report says a limit was hit when one of its windows is used up (Codex: `usedPercent` >= 100). */
function limitHit(data: unknown): boolean {
  if (!isRecord(data)) return false;
  return Object.values(data).some(
    (window) => isRecord(window) && typeof window.usedPercent === 'number' && window.usedPercent >= 100,
  );
}
