// The bridge's stdout: lines written within one tick leave in one write, whole and in order, at the
// end of that tick; a stdout the client closed takes nothing more and throws nothing (a real pipe the
// client closed: codex-app-server-bridge.process.test.ts).
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JoinedLines } from './joined-lines.js';

/** A stream that keeps every write as it came. */
function recording(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  return { stream, writes };
}

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));
const nextLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('JoinedLines', () => {
  it('joins the lines of one tick into one write, in order, each with its newline', async () => {
    const { stream, writes } = recording();
    const lines = new JoinedLines(stream);
    lines.write('{"a":1}');
    // Written from microtasks of the same tick (as the pump's events are): the same write.
    await Promise.resolve().then(() => lines.write('{"b":2}'));
    lines.write('{"c":3}');
    expect(writes).toEqual([]);
    await nextLoop();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n']);
  });

  it('lets no line wait past its tick: the next tick writes its own lines', async () => {
    const { stream, writes } = recording();
    const lines = new JoinedLines(stream);
    lines.write('first');
    await nextLoop();
    expect(writes).toEqual(['first\n']);
    lines.write('second');
    await nextTick();
    expect(writes).toEqual(['first\n', 'second\n']);
  });

  it('flush writes what is pending at once, and the end of the tick then has nothing left to write', async () => {
    const { stream, writes } = recording();
    const lines = new JoinedLines(stream);
    lines.write('last words');
    lines.flush();
    expect(writes).toEqual(['last words\n']);
    await nextLoop();
    expect(writes).toEqual(['last words\n']);
  });

  it('takes nothing more once the stream failed, and neither a write nor a flush throws', async () => {
    const stream = new PassThrough();
    const errors: string[] = [];
    const lines = new JoinedLines(stream, (error) => errors.push(error.message));
    lines.write('pending when it broke');
    stream.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await nextLoop();
    expect(errors).toEqual(['write EPIPE']);
    expect(() => {
      lines.write('after');
      lines.flush();
    }).not.toThrow();
    await nextLoop();
  });
});
