// Pure: Reins usage -> Codex's ThreadTokenUsage, whose schema requires every count. Where the harness
// did not report a required number, the bridge sends what the protocol means by it and nothing made up
// (docs/architecture/bridges.md lists each case):
// - cachedInputTokens, cacheWriteInputTokens, reasoningOutputTokens are parts of the input or output
//   count: Codex itself sends 0 for a part its provider did not itemize, so 0 here means "not
//   itemized", never "none were cached".
// - totalTokens is input + output when the harness reported those two but no total (Codex's own
//   definition of the total).
// - `total` is the thread's total: the harness's, or, for a thread this bridge started with a harness
//   that reports per turn only, the sum of the turns it ran (exact, as the thread began here).
// - `last` (Codex: the last model request) is the turn's usage: Reins counts per turn, so for a turn
//   of several model requests it is their sum.
// Without input and output counts for both, no usage notification goes out at all.
import type { TokenUsage, Usage } from '@reins/core';
import type { ThreadTokenUsage, TokenUsageBreakdown } from './wire.js';

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The breakdown of reported counts, or undefined when input or output is missing. */
export function breakdownOf(tokens: TokenUsage | undefined): TokenUsageBreakdown | undefined {
  if (!tokens || !isCount(tokens.input) || !isCount(tokens.output)) return undefined;
  const part = (value: number | undefined) => (isCount(value) ? value : 0);
  return {
    totalTokens: isCount(tokens.total) ? tokens.total : tokens.input + tokens.output,
    inputTokens: tokens.input,
    cachedInputTokens: part(tokens.cachedInput),
    cacheWriteInputTokens: part(tokens.cacheWrite),
    outputTokens: tokens.output,
    reasoningOutputTokens: part(tokens.reasoning),
  };
}

export function addBreakdowns(a: TokenUsageBreakdown, b: TokenUsageBreakdown): TokenUsageBreakdown {
  return {
    totalTokens: a.totalTokens + b.totalTokens,
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cacheWriteInputTokens: a.cacheWriteInputTokens + b.cacheWriteInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningOutputTokens: a.reasoningOutputTokens + b.reasoningOutputTokens,
  };
}

export const ZERO_BREAKDOWN: TokenUsageBreakdown = {
  totalTokens: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  outputTokens: 0,
  reasoningOutputTokens: 0,
};

/**
 * Reins usage -> ThreadTokenUsage (see the header), or undefined when it cannot be said in full.
 * `turnsBefore` is the sum of the thread's earlier turns when that is known exactly.
 */
export function tokenUsageOf(usage: Usage, turnsBefore: TokenUsageBreakdown | undefined): ThreadTokenUsage | undefined {
  const last = breakdownOf(usage.turn);
  if (!last) return undefined;
  const total = breakdownOf(usage.total) ?? (turnsBefore ? addBreakdowns(turnsBefore, last) : undefined);
  if (!total) return undefined;
  const window = usage.context?.window;
  return { total, last, modelContextWindow: isCount(window) ? window : null };
}
