// What closes a turn that cannot end by itself: its open items failed, then the turn failed with
// the reason given; nothing for a turn that ended, and nothing for one whose turn.started the log
// does not hold (a terminal is never logged without its start).
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { CrashedTurn } from './daemon-events.js';

const base = { harness: 'codex', sessionId: 's', at: 1 } as const;
const started = { ...base, type: 'turn.started', seq: 5, turnId: 't', input: { text: 'hi' } } as ReinsEvent;
const item = { kind: 'agent_message', id: 'i', status: 'running', text: '' } as const;
const itemStarted = { ...base, type: 'item.started', seq: 6, turnId: 't', item } as ReinsEvent;

describe('CrashedTurn', () => {
  it('fails the open items, then the turn, with the error given (process_exited by default)', () => {
    const scan = new CrashedTurn({ turnId: 't', seq: 5 });
    scan.observe(started);
    scan.observe(itemStarted);
    expect(scan.closing()).toMatchObject([
      { type: 'item.completed', item: { id: 'i', status: 'failed' } },
      { type: 'turn.completed', outcome: { status: 'failed', error: { code: 'process_exited' } } },
    ]);
    const full = { code: 'store_unavailable', message: 'disk full' } as const;
    expect(scan.closing(full).at(-1)).toMatchObject({ outcome: { error: full } });
  });

  it('says nothing for a turn that ended or whose start is not in the log', () => {
    const ended = new CrashedTurn({ turnId: 't', seq: 5 });
    ended.observe(started);
    ended.observe({
      ...base,
      type: 'turn.completed',
      seq: 7,
      turnId: 't',
      outcome: { status: 'completed' },
    } as ReinsEvent);
    expect(ended.closing()).toEqual([]);
    const unstarted = new CrashedTurn({ turnId: 't', seq: 5 });
    unstarted.observe(itemStarted);
    expect(unstarted.closing()).toEqual([]);
  });
});
