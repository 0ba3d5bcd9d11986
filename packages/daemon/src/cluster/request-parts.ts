// How a gateway request bigger than one NATS message (a send with an inline image) goes to a worker
// in parts, and is put back together there (pure). Each part is its own request on the worker's
// rpc subject, sent one after another, headed `Reins-Upload: <id>` and `Reins-Part: <n>/<of>`;
// the worker acknowledges each part and answers the last with the request's reply. Reassembly
// reuses the event parts' PartAssembler (codec.ts). See docs/architecture/cluster.md, "Limits".
import { PartAssembler } from './codec.js';

export const UPLOAD_HEADER = 'Reins-Upload';
export { PART_HEADER } from './codec.js';

/** The most a request in parts may hold, whole (a gateway refuses a bigger one with invalid_input). */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** An upload whose next part does not come within this long is forgotten. */
export const UPLOAD_IDLE_MS = 60_000;

/** `data` cut into pieces of at most `maxBytes` (views into it, in order). */
export function splitRequest(data: Uint8Array, maxBytes: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += maxBytes) parts.push(data.subarray(at, at + maxBytes));
  return parts;
}

/** `<n>/<of>` read back, or undefined when it is not a sane part header. */
export function parsePart(value: string | undefined): { index: number; of: number } | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(value ?? '');
  if (!match) return undefined;
  const index = Number(match[1]);
  const of = Number(match[2]);
  return index >= 1 && index <= of ? { index, of } : undefined;
}

export type UploadStep =
  | { kind: 'more' }
  | { kind: 'whole'; data: Uint8Array }
  /** Out of order, from an upload it does not know, or too big: the sender must start over. */
  | { kind: 'broken'; reason: string };

const encoder = new TextEncoder();

/** The uploads a worker is receiving, by id; each expires when its parts stop coming. */
export class UploadAssembler {
  private readonly uploads = new Map<string, { assembler: PartAssembler; next: number; bytes: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  take(uploadId: string, part: { index: number; of: number }, bytes: Uint8Array): UploadStep {
    this.expire();
    let upload = this.uploads.get(uploadId);
    if (part.index === 1) {
      upload = { assembler: new PartAssembler(), next: 1, bytes: 0, at: this.now() };
      this.uploads.set(uploadId, upload);
    }
    if (!upload || upload.next !== part.index) {
      this.uploads.delete(uploadId);
      return { kind: 'broken', reason: `part ${part.index} of ${part.of} came out of order` };
    }
    upload.bytes += bytes.length;
    if (upload.bytes > MAX_REQUEST_BYTES) {
      this.uploads.delete(uploadId);
      return { kind: 'broken', reason: `it is over ${MAX_REQUEST_BYTES} bytes` };
    }
    upload.next++;
    upload.at = this.now();
    const whole = upload.assembler.take({ kind: 'part', seq: 1, index: part.index, of: part.of, bytes });
    if (part.index < part.of) return { kind: 'more' };
    this.uploads.delete(uploadId);
    const entry = whole[0];
    return entry
      ? { kind: 'whole', data: encoder.encode(entry.json) }
      : { kind: 'broken', reason: 'it was incomplete' };
  }

  /** Uploads still in progress. */
  get size(): number {
    return this.uploads.size;
  }

  private expire(): void {
    const cutoff = this.now() - UPLOAD_IDLE_MS;
    for (const [id, upload] of this.uploads) if (upload.at < cutoff) this.uploads.delete(id);
  }
}
