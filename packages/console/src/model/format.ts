// How numbers the harness reported read: token counts, cost, context use, times. Only what was
// reported is formatted; an absent figure stays absent (docs/architecture/contract.md, principle 3).
import type { Cost, TokenUsage } from '@reins/core';

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function tokens(count: number): string {
  if (count >= 1_000_000) return `${trim(count / 1_000_000)}M`;
  if (count >= 10_000) return `${trim(count / 1_000)}k`;
  return integer.format(count);
}

function trim(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1).replace(/\.0$/, '');
}

/** "1,234 in · 56 out · 12 reasoning": only the parts the harness reported. */
export function tokenSummary(usage: TokenUsage | undefined): string | undefined {
  if (!usage) return undefined;
  const parts: string[] = [];
  if (usage.input !== undefined) parts.push(`${tokens(usage.input)} in`);
  if (usage.cachedInput !== undefined && usage.cachedInput > 0) parts.push(`${tokens(usage.cachedInput)} cached`);
  if (usage.output !== undefined) parts.push(`${tokens(usage.output)} out`);
  if (usage.reasoning !== undefined && usage.reasoning > 0) parts.push(`${tokens(usage.reasoning)} reasoning`);
  if (parts.length === 0 && usage.total !== undefined) parts.push(`${tokens(usage.total)} tokens`);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

/** "$0.0123" (derived figures say so). */
export function cost(value: Cost): string {
  const digits = value.amount < 0.01 ? 4 : 2;
  const amount = `$${value.amount.toFixed(digits)}`;
  return value.source === 'derived' ? `${amount} (derived)` : amount;
}

/** Share of the context window in use, 0..1, when both numbers were reported. */
export function contextShare(context: { used?: number; window?: number } | undefined): number | undefined {
  if (context?.used === undefined || !context.window) return undefined;
  return Math.min(1, Math.max(0, context.used / context.window));
}

/** "just now", "5 min ago", "3 h ago", or a date. */
export function relativeTime(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return new Date(at).toISOString().slice(0, 10);
}

/** The last folder of a path: what a list shows of a cwd. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts.at(-1) ?? path;
}
