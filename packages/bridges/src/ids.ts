// Ids the bridges make: time-ordered UUIDs (version 7, as Codex makes its thread and turn ids) for
// what happens now, and stable name-based UUIDs (version 8, RFC 9562's custom version) for what must
// get the same id every time it is shown (a turn of a stored conversation that has no id of its own).
import { createHash, randomFillSync } from 'node:crypto';

function format(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

// Random bytes are drawn 4 KiB at a time and each 16 bytes used for one id only (as Node's own
// randomUUID does): a randomBytes(16) call per id was 5% of the bridges' whole translation fuzz run.
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;

function sixteenRandomBytes(): Uint8Array {
  if (poolOffset + 16 > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
}

/**
 * A UUIDv7: 48 bits of milliseconds, then random bits (ids made later sort later). A time that is not
 * a finite non-negative number counts as 0, and one past 2^48 ms keeps its low 48 bits.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  const bytes = sixteenRandomBytes();
  const ms = Number.isFinite(nowMs) && nowMs > 0 ? Math.floor(nowMs) : 0;
  // Plain arithmetic rather than BigInt shifts: the top 16 of the 48 bits, then the low 32.
  const high = Math.floor(ms / 2 ** 32) % 2 ** 16;
  const low = ms % 2 ** 32;
  bytes[0] = high >>> 8;
  bytes[1] = high & 0xff;
  bytes[2] = low >>> 24;
  bytes[3] = (low >>> 16) & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
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
