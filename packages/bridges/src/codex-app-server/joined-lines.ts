// The bridge's lines to its stdout, joined: every line written within one tick of the event loop goes
// out in one write at the end of that tick (process.nextTick: after the microtasks that pump the
// harness's events, before the loop polls again), in the order written. One harness frame often
// becomes several notifications, and each write to a pipe is a system call of its own (Node writes
// pipes synchronously on Linux): a fifth of a CPU profile's samples in a warm turn. No line waits
// longer than the tick it was written in, and `flush` writes what is pending at once (shutdown).
import type { Writable } from 'node:stream';

export class JoinedLines {
  private pending = '';
  private scheduled = false;
  private broken = false;

  constructor(
    private readonly stream: Writable,
    /** The stream failed (the client closed its end, EPIPE): what was pending and everything after is dropped. */
    onError: (error: Error) => void = () => {},
  ) {
    stream.on('error', (error) => {
      this.broken = true;
      this.pending = '';
      onError(error);
    });
  }

  /** Queues one line (the newline is added) for the write at the end of this tick. */
  write(line: string): void {
    if (this.broken) return;
    this.pending += `${line}\n`;
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Writes what is pending now. */
  flush(): void {
    if (this.broken || this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.stream.write(text);
  }
}
