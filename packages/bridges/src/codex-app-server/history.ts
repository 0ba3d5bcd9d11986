// Pure: a stored conversation (the items a harness keeps) as Codex turns. A harness's transcript
// says what was said, not how each turn ended: an interrupted or a failed turn reads there like any
// other, and input steered into a turn like a new turn. The bridge's own record of the turns it ran
// (records.ts) says that, so the two are put together: each recorded turn is found again by its
// first input, takes the inputs it took, and keeps its id, status and error. Turns the bridge did not
// run (made with the harness directly) are one per user message, completed, with a stable id.
import { classifyUserMessage, type Item } from '@reins/core';
import { stableUuid } from '../ids.js';
import type { SessionRecord, TurnRecord } from '../records.js';
import { type ItemContext, threadItemOf } from './items.js';
import type { CodexErrorInfo, ThreadItem, Turn, TurnItemsView } from './wire.js';

/** How much of a turn's first input a record keeps to find it again. */
export const FIRST_INPUT_CHARS = 200;

export function firstInputKey(text: string): string {
  return text.trim().slice(0, FIRST_INPUT_CHARS);
}

/**
 * User messages a person wrote. The harness's own machinery in user-role text is not one, whether
 * its adapter marked it or not: core's system-text registry classifies it (Claude Code's "[Request
 * interrupted by user]", which would otherwise show as a user turn "You interrupted the turn.").
 */
function isUserInput(item: Item): item is Item & { kind: 'user_message' } {
  if (item.kind !== 'user_message') return false;
  const origin = classifyUserMessage(item).origin;
  return origin === undefined || origin === 'user';
}

/** How many inputs a stored conversation holds (to tell a transcript still being written). */
export function storedInputs(items: Item[]): number {
  return items.filter(isUserInput).length;
}

/** How many inputs the record says the conversation took. */
export function recordedInputs(record: SessionRecord | undefined): number {
  return (record?.turns ?? []).reduce((sum, turn) => sum + turn.inputs, 0);
}

interface Group {
  record: TurnRecord | undefined;
  items: Item[];
  inputs: number;
}

/** Splits stored items into turns, led by the record where it knows the turn (see the header). */
function groupTurns(items: Item[], records: TurnRecord[]): Group[] {
  const groups: Group[] = [];
  let next = 0;
  let current: Group | undefined;
  for (const item of items) {
    if (item.kind === 'user_message' && !isUserInput(item)) continue;
    if (isUserInput(item)) {
      if (current?.record && current.inputs < current.record.inputs) {
        current.inputs++;
        current.items.push(item);
        continue;
      }
      const key = firstInputKey(item.text);
      const found = records.findIndex((record, index) => index >= next && record.firstInput === key);
      const record = found === -1 ? undefined : records[found];
      if (found !== -1) next = found + 1;
      current = { record, items: [item], inputs: 1 };
      groups.push(current);
      continue;
    }
    if (!current) {
      current = { record: undefined, items: [], inputs: 0 };
      groups.push(current);
    }
    current.items.push(item);
  }
  return groups;
}

/** The items of a turn in the given view (Codex's `summary`: the user messages and the last answer). */
export function itemsInView(items: ThreadItem[], view: TurnItemsView): ThreadItem[] {
  if (view === 'notLoaded') return [];
  if (view === 'full') return items;
  const final = [...items].reverse().find((item) => item.type === 'agentMessage');
  return items.filter((item) => item.type === 'userMessage' || item === final);
}

/** A recorded turn's times and outcome on the Codex Turn. */
function recordedFields(
  record: TurnRecord | undefined,
): Pick<Turn, 'status' | 'error' | 'startedAt' | 'completedAt' | 'durationMs'> {
  if (!record) return { status: 'completed', error: null, startedAt: null, completedAt: null, durationMs: null };
  const seconds = (ms: number) => Math.floor(ms / 1000);
  return {
    status: record.status,
    error: record.error
      ? {
          message: record.error.message,
          codexErrorInfo: (record.error.codexErrorInfo as CodexErrorInfo | undefined) ?? 'other',
          additionalDetails: record.error.additionalDetails ?? null,
          misalignment: null,
        }
      : null,
    startedAt: seconds(record.startedAtMs),
    completedAt: record.completedAtMs === undefined ? null : seconds(record.completedAtMs),
    durationMs:
      record.completedAtMs === undefined ? null : Math.max(0, Math.round(record.completedAtMs - record.startedAtMs)),
  };
}

/**
 * Settled items of a stored conversation as Codex turns, in the order they happened, each with its
 * items in `view` (`full` for thread/resume and thread/read, as Codex).
 */
export function historyTurns(
  items: Item[],
  context: Omit<ItemContext, 'streamedOutput'>,
  record: SessionRecord | undefined,
  view: TurnItemsView = 'full',
): Turn[] {
  return groupTurns(items, record?.turns ?? []).map((group, index) => {
    const id = group.record?.id ?? stableUuid(context.threadId, 'turn', String(index));
    let stored = group.items;
    const errorText = group.record?.status === 'failed' ? group.record.error?.message.trim() : undefined;
    if (errorText) {
      // Claude Code 2.1.197 writes a failed turn's error into its transcript as the assistant's
      // text: the turn's error says it, so it is not shown again as an answer.
      stored = stored.filter((item) => !(item.kind === 'agent_message' && item.text.trim() === errorText));
    }
    const threadItems = stored.map((item) => threadItemOf(item, context));
    return {
      id,
      rootTurnId: id,
      items: itemsInView(threadItems, view),
      itemsView: view,
      ...recordedFields(group.record),
    };
  });
}
