// The stream rules every adapter must keep, checked on any recorded event log (docs/architecture/contract.md: principles, turn rules):
// seq from 1 with no gaps, one session and harness throughout, exactly one turn.completed per
// turn.started (never a terminal for a turn that did not start, never a turn started twice), no turn
// events after the terminal, every started item completed once and before its turn ends (background
// work excepted: an item the harness keeps working on after its turn completes later with turnId null), item ids
// stable (a completed item was started under the same id and kind), and no assistant text delivered
// twice in a row within a turn.
import type { ReinsEvent } from '@reins/core';

export interface StreamCheckOptions {
  /**
   * The log was taken at a quiet point (after close, or once every awaited terminal arrived), so a
   * turn that started without its terminal is a violation even though the stream is still open.
   */
  settled?: boolean;
}

export function streamViolations(events: readonly ReinsEvent[], options: StreamCheckOptions = {}): string[] {
  const problems: string[] = [];
  const first = events[0];
  events.forEach((event, index) => {
    if (event.seq !== index + 1) problems.push(`seq ${event.seq} at position ${index + 1} (gap or reorder)`);
    if (first && event.sessionId !== first.sessionId) problems.push(`seq ${event.seq}: sessionId changed`);
    if (first && event.harness !== first.harness) problems.push(`seq ${event.seq}: harness changed`);
  });

  let turn: string | null = null;
  const started = new Set<string>();
  const finished = new Set<string>();
  const open = new Map<string, string>();
  /** Background items still open after the turn they started in ended. */
  const outliving = new Map<string, string>();
  const completedItems = new Set<string>();
  /** Items whose completion comes outside any turn: background work, which may outlive the turn it started in. */
  const background = new Set(
    events.flatMap((event) => (event.type === 'item.completed' && event.turnId === null ? [event.item.id] : [])),
  );
  /** The last settled assistant text per turn, forgotten when another item settles in between. */
  const lastMessage = new Map<string, string>();
  for (const event of events) {
    const at = `seq ${event.seq} (${event.type})`;
    // A turn's `checkpoint` comes after its terminal by definition (contract.md, "Checkpoints").
    if (event.turnId !== null && finished.has(event.turnId) && event.type !== 'checkpoint') {
      if (event.type === 'turn.started') problems.push(`${at}: turn ${event.turnId} started twice`);
      else if (event.type === 'turn.completed') problems.push(`${at}: turn ${event.turnId} completed twice`);
      else problems.push(`${at}: event for finished turn ${event.turnId}`);
    }
    switch (event.type) {
      case 'turn.started':
        if (turn !== null) problems.push(`${at}: turn ${event.turnId} started while ${turn} runs`);
        if (event.turnId === null) problems.push(`${at}: turn.started without a turnId`);
        else started.add(event.turnId);
        turn = event.turnId;
        break;
      case 'turn.completed':
        if (event.turnId === null) problems.push(`${at}: turn.completed without a turnId`);
        else if (!started.has(event.turnId)) problems.push(`${at}: turn ${event.turnId} completed but never started`);
        else if (!finished.has(event.turnId) && event.turnId !== turn)
          problems.push(`${at}: terminal for ${event.turnId} while ${turn ?? 'no turn'} runs`);
        for (const [id, kind] of open) {
          if (!background.has(id)) problems.push(`${at}: ${kind} item ${id} still open at turn end`);
          else outliving.set(id, kind);
        }
        open.clear();
        if (event.turnId !== null) finished.add(event.turnId);
        turn = null;
        break;
      case 'item.started':
        if (open.has(event.item.id) || outliving.has(event.item.id) || completedItems.has(event.item.id)) {
          problems.push(`${at}: item ${event.item.id} started twice`);
        }
        open.set(event.item.id, event.item.kind);
        break;
      case 'item.completed': {
        const kind = open.get(event.item.id) ?? outliving.get(event.item.id);
        outliving.delete(event.item.id);
        if (completedItems.has(event.item.id)) problems.push(`${at}: item ${event.item.id} completed twice`);
        if (kind !== undefined && kind !== event.item.kind) {
          problems.push(`${at}: item ${event.item.id} started as ${kind}, completed as ${event.item.kind}`);
        }
        open.delete(event.item.id);
        completedItems.add(event.item.id);
        if (event.item.kind === 'agent_message' && event.item.text.trim() !== '' && event.turnId !== null) {
          // An adapter that duplicates text (partial and final, replayed history) emits the same message
          // back to back; a model that says the same thing again after a tool round is not a duplicate.
          if (lastMessage.get(event.turnId) === event.item.text) {
            problems.push(`${at}: assistant text repeated in turn ${event.turnId}`);
          }
          lastMessage.set(event.turnId, event.item.text);
        } else if (event.turnId !== null && event.item.kind !== 'agent_message') {
          lastMessage.delete(event.turnId);
        }
        break;
      }
      case 'session.closed':
        if (turn !== null) problems.push(`${at}: session closed while turn ${turn} had no terminal`);
        break;
      default:
        break;
    }
  }
  if (turn !== null && (options.settled || events.at(-1)?.type === 'session.closed'))
    problems.push(`turn ${turn} never completed`);
  if (events.at(-1)?.type === 'session.closed') {
    for (const [id, kind] of outliving) problems.push(`background ${kind} item ${id} still open at session end`);
  }
  return problems;
}

/** Throws with every violation listed; use in tests after a session's events are collected. */
export function assertStreamInvariants(events: readonly ReinsEvent[], options: StreamCheckOptions = {}): void {
  const problems = streamViolations(events, options);
  if (problems.length > 0) {
    throw new Error(`The event stream breaks the Reins contract:\n- ${problems.join('\n- ')}`);
  }
}
