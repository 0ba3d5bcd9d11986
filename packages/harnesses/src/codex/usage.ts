// Codex token usage as Reins usage (thread/tokenUsage/updated). Pure and total over any value: a count
// that is absent, not a number or negative stays absent, never zero. Codex reports no cost.
//
// Built field by field, not from a table of keys: this runs for every usage frame, and dynamic keys
// (`out[key] = ...` over an entries list) cost more than the whole rest of the frame's translation
// (the bench's translate figure, bench/README.md).
import { isRecord, type TokenUsage, type Usage } from '@reins/core';
import type { TokenUsageBreakdown } from './wire.js';

/** What usage needs of the translation state: the thread totals (see TranslateState in translate.ts). */
export interface UsageTotals {
  totalAtTurnStart: TokenUsageBreakdown | undefined;
  lastTotal: TokenUsageBreakdown | undefined;
}

/** A count Codex reported; anything else (absent, not a number, negative) is absent, never zero. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * `now - then` for one field: absent unless both are counts and it did not go down (a count that went
 * down, as frames out of order would show, is not a usage). With no `before` breakdown, `now` itself.
 */
function since(now: unknown, then: unknown, hasBefore: boolean): number | undefined {
  const value = count(now);
  if (value === undefined || !hasBefore) return value;
  const start = count(then);
  return start !== undefined && value >= start ? value - start : undefined;
}

/**
 * Reins usage from a breakdown; with `before`, the part since then (fields known on both sides only; a
 * count that went down is not a usage and stays absent). Keys in the order input, cachedInput,
 * cacheWrite, output, reasoning, total.
 */
export function tokenUsage(breakdown: unknown, before?: unknown): TokenUsage {
  const out: TokenUsage = {};
  if (!isRecord(breakdown)) return out;
  const hasBefore = isRecord(before);
  const then: Record<string, unknown> = hasBefore ? before : NO_BREAKDOWN;
  const input = since(breakdown.inputTokens, then.inputTokens, hasBefore);
  if (input !== undefined) out.input = input;
  const cachedInput = since(breakdown.cachedInputTokens, then.cachedInputTokens, hasBefore);
  if (cachedInput !== undefined) out.cachedInput = cachedInput;
  const cacheWrite = since(breakdown.cacheWriteInputTokens, then.cacheWriteInputTokens, hasBefore);
  if (cacheWrite !== undefined) out.cacheWrite = cacheWrite;
  const output = since(breakdown.outputTokens, then.outputTokens, hasBefore);
  if (output !== undefined) out.output = output;
  const reasoning = since(breakdown.reasoningOutputTokens, then.reasoningOutputTokens, hasBefore);
  if (reasoning !== undefined) out.reasoning = reasoning;
  const total = since(breakdown.totalTokens, then.totalTokens, hasBefore);
  if (total !== undefined) out.total = total;
  return out;
}

const NO_BREAKDOWN: Record<string, unknown> = {};

/**
 * Codex's `last` is the last sampling request, not the turn: a turn with a tool call makes two
 * requests. So the turn's usage is the thread total minus the total when the turn started, when that
 * is known (a fresh thread starts at zero); otherwise (first turn after a resume) `last`.
 * Codex reports no cost, so costUsd stays absent. Context used = tokens of the last request.
 */
export function usageOf(state: UsageTotals, usage: unknown): Usage {
  return fillUsage({} as Usage, state, usage);
}

/** The usage.updated payload of a ThreadTokenUsage (keys: type, turn, total, context). */
export function usageUpdated(state: UsageTotals, usage: unknown): Usage & { type: 'usage.updated' } {
  return fillUsage<Usage & { type: 'usage.updated' }>({ type: 'usage.updated' }, state, usage);
}

function fillUsage<T extends Usage>(out: T, state: UsageTotals, usage: unknown): T {
  const record = isRecord(usage) ? usage : undefined;
  const total = record && isRecord(record.total) ? record.total : undefined;
  const last = record && isRecord(record.last) ? record.last : undefined;
  out.turn = state.totalAtTurnStart ? tokenUsage(total, state.totalAtTurnStart) : tokenUsage(last);
  if (total) state.lastTotal = total as unknown as TokenUsageBreakdown;
  out.total = tokenUsage(total);
  const used = count(last?.totalTokens);
  if (used !== undefined) {
    const window = count(record?.modelContextWindow);
    out.context = window !== undefined ? { used, window } : { used };
  }
  return out;
}
