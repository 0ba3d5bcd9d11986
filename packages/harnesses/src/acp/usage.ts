// ACP usage as Reins usage: usage_update (context window, cost) and PromptResponse.usage (the turn's
// token counts). What the agent did not send, or sent with the wrong type, stays absent. Pure.
import { isRecord, type TokenUsage, type Usage } from '@reins/core';
import type { Usage as AcpUsage } from './wire.js';

/** A token count or size the agent reported; anything else is absent (never zero, never negative). */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

export function usageFromUpdate(update: { used?: unknown; size?: unknown; cost?: unknown } | unknown): Usage {
  const record = isRecord(update) ? update : {};
  const used = count(record.used);
  const window = count(record.size);
  const usage: Usage = {};
  if (used !== undefined || window !== undefined) {
    usage.context = { ...(used !== undefined ? { used } : {}), ...(window !== undefined ? { window } : {}) };
  }
  // Only USD has a field; another currency stays in the native frame.
  const cost = isRecord(record.cost) ? record.cost : undefined;
  const amount = count(cost?.amount);
  if (amount !== undefined && typeof cost?.currency === 'string' && cost.currency.toUpperCase() === 'USD') {
    usage.costUsd = { amount, currency: 'USD', source: 'provider' };
  }
  return usage;
}

/** PromptResponse.usage -> the turn's token counts; fields the agent did not send stay absent. */
export function turnTokens(usage: AcpUsage | null | undefined | unknown): TokenUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const out: TokenUsage = {};
  const take = (key: keyof TokenUsage, value: unknown) => {
    const n = count(value);
    if (n !== undefined) out[key] = n;
  };
  take('input', usage.inputTokens);
  take('output', usage.outputTokens);
  take('total', usage.totalTokens);
  take('reasoning', usage.thoughtTokens);
  take('cachedInput', usage.cachedReadTokens);
  take('cacheWrite', usage.cachedWriteTokens);
  return Object.keys(out).length > 0 ? out : undefined;
}
