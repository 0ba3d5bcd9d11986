// Narrowing helpers for untrusted JSON request bodies: every harness sends a slightly different shape,
// so dialect code reads fields through these instead of casting.

export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Concatenates every string found under `text` keys (and bare strings) inside a content value. */
export function collectText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(collectText).filter(Boolean).join('\n');
  const record = asRecord(value);
  if (!record) return '';
  return asString(record.text) ?? '';
}
