import { describe, expect, it } from 'vitest';
import { chooseWorker } from './placement.js';
import type { MemberRecord } from './records.js';

const worker = (id: string, labels: Record<string, string>, liveSessions = 0, epoch = 'e1'): MemberRecord => ({
  role: 'worker',
  id,
  epoch,
  labels,
  harnesses: ['codex', 'claude-code'],
  liveSessions,
  host: 'h',
  pid: 1,
  startedAt: 0,
});

describe('placement', () => {
  it('takes the least busy worker with every label asked for', () => {
    const workers = [worker('w1', { host: 'a', pool: 'x' }, 3), worker('w2', { host: 'b', pool: 'x' }, 1)];
    expect(chooseWorker(workers, { harness: 'codex', labels: { pool: 'x' } }).id).toBe('w2');
    expect(chooseWorker(workers, { harness: 'codex', labels: { host: 'a' } }).id).toBe('w1');
    expect(chooseWorker(workers, { harness: 'codex' }).id).toBe('w2');
    expect(chooseWorker([worker('b', {}), worker('a', {})], { harness: 'codex' }).id).toBe('a');
  });

  it('says what is there when nothing fits', () => {
    const workers = [worker('w1', { host: 'a' })];
    expect(() => chooseWorker(workers, { harness: 'codex', labels: { host: 'z' } })).toThrow(
      /no worker has the labels host=z\. Workers: w1 \(host=a\)/,
    );
    expect(() => chooseWorker(workers, { harness: 'gemini' })).toThrow(/offers the gemini harness/);
    expect(() => chooseWorker([], { harness: 'codex', sessionId: 's1' })).toThrow(
      expect.objectContaining({ code: 'process_exited', message: expect.stringContaining('session s1') }),
    );
  });
});
