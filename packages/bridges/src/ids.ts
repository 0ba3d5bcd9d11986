// Ids the bridges make: time-ordered UUIDs (version 7, as Codex makes its thread and turn ids) for
// what happens now, and stable name-based UUIDs (version 8, RFC 9562's custom version) for what must
// get the same id every time it is shown (a turn of a stored conversation that has no id of its own).
import { createHash, randomBytes } from 'node:crypto';

function format(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A UUIDv7: 48 bits of milliseconds, then random bits (ids made later sort later). */
export function uuidv7(nowMs: number = Date.now()): string {
  const bytes = randomBytes(16);
  const ms = BigInt(Math.max(0, Math.floor(nowMs)));
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return format(bytes);
}

/** The same UUID (version 8) for the same parts, every time: a hash of them. */
export function stableUuid(...parts: string[]): string {
  const bytes = createHash('sha256').update(parts.join('\u0000')).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return format(bytes);
}
