// Unit: which of Pi's user-message entries a Reins turn opened (revert.ts), from the messages Reins sent.
import { describe, expect, it } from 'vitest';
import { forkEntryOf, PiUserMessages } from './revert.js';

const listed = (...texts: string[]) => texts.map((text, index) => ({ entryId: `e${index}`, text }));

describe('pi revert: the entry a turn opened', () => {
  it("finds the turn's prompt among Pi's user messages, after messages of an earlier process", () => {
    const sent = new PiUserMessages();
    sent.prompt('t1', 'fix the bug');
    sent.prompt('t2', 'now add a test');
    const located = sent.locate('t2');
    expect(located).toEqual({ text: 'now add a test', fromEnd: 1 });
    expect(forkEntryOf(listed('from a resumed file', 'fix the bug', 'now add a test'), located!)).toBe('e2');
  });

  it('counts later prompts and steers with the same text, so a repeated prompt picks its own entry', () => {
    const sent = new PiUserMessages();
    sent.prompt('t1', 'again');
    sent.prompt('t2', 'other');
    sent.steer('t2', 'again');
    sent.prompt('t3', 'again');
    expect(sent.locate('t1')).toEqual({ text: 'again', fromEnd: 3 });
    expect(forkEntryOf(listed('again', 'other', 'again', 'again'), sent.locate('t1')!)).toBe('e0');
    expect(forkEntryOf(listed('again', 'other', 'again', 'again'), sent.locate('t3')!)).toBe('e3');
  });

  it('names no entry for a turn Reins did not prompt here, or one Pi stored under other text', () => {
    const sent = new PiUserMessages();
    sent.prompt('t1', '/template expands');
    expect(sent.locate('unknown')).toBeUndefined();
    expect(forkEntryOf(listed('the expanded template text'), sent.locate('t1')!)).toBeUndefined();
  });

  it('after a fork the reverted turn and every later one are gone from what Reins sent', () => {
    const sent = new PiUserMessages();
    sent.prompt('t1', 'one');
    sent.prompt('t2', 'two');
    sent.steer('t2', 'one');
    sent.prompt('t3', 'three');
    sent.dropFrom('t2');
    expect(sent.locate('t2')).toBeUndefined();
    expect(sent.locate('t3')).toBeUndefined();
    expect(sent.locate('t1')).toEqual({ text: 'one', fromEnd: 1 });
    sent.prompt('t4', 'one');
    expect(forkEntryOf(listed('one', 'one'), sent.locate('t4')!)).toBe('e1');
  });
});
