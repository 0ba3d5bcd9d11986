// Type guards for values that crossed a trust boundary (a harness frame, a client message).

/** A plain object (not null, not an array): the first check before reading fields of foreign JSON. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The string at `record[key]`, or undefined when it is absent or not a string. */
export function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}
