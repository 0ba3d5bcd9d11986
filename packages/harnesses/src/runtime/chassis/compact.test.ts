// SessionChassis.compact: the one shape of a Session.compact() turn every adapter shares
// (docs/architecture/contract.md, "Compaction"), and its refusals.
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { streamViolations } from '../../../../testkit/src/conformance/invariants.js';
import { type ChassisTurn, SessionChassis, type TurnHost } from './session-chassis.js';

class RecordingHost implements TurnHost {
  begun: ChassisTurn[] = [];
  beginTurn(turn: ChassisTurn): void {
    this.begun.push(turn);
  }
}

function setup() {
  const host = new RecordingHost();
  const chassis = new SessionChassis(host, {
    harness: 'codex',
    displayName: 'Fake',
    sessionId: 's1',
    structuredOutput: 'native',
  });
  const events: ReinsEvent[] = [];
  void (async () => {
    for await (const event of chassis.events) events.push(event);
  })();
  return { host, chassis, events };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SessionChassis.compact', () => {
  it('starts a turn of its own marked compaction, with input /compact and a synthetic user_message', async () => {
    const { host, chassis, events } = setup();
    expect(chassis.compact(undefined)).toEqual({ turnId: 'turn_1', delivery: 'started' });
    await tick();
    expect(host.begun).toHaveLength(1);
    expect(host.begun[0]).toMatchObject({ turnId: 'turn_1', compaction: true, input: { text: '/compact' } });
    const item = { kind: 'compaction' as const, id: 'c1', status: 'completed' as const };
    chassis.stream.emit({ type: 'item.started', item: { ...item, status: 'running' } });
    chassis.stream.emit({ type: 'item.completed', item });
    chassis.complete(host.begun[0] as ChassisTurn, { outcome: { status: 'completed' } });
    await tick();
    expect(events.map((event) => event.type)).toEqual([
      'turn.started',
      'item.started',
      'item.completed',
      'item.started',
      'item.completed',
      'turn.completed',
    ]);
    const message = events.find((event) => event.type === 'item.completed' && event.item.kind === 'user_message');
    expect(message?.type === 'item.completed' && message.item).toMatchObject({ text: '/compact', origin: 'synthetic' });
    expect(streamViolations(events)).toEqual([]);
    // The session goes on: the next send is an ordinary turn.
    expect(await chassis.send('next')).toEqual({ turnId: 'turn_2', delivery: 'started' });
    expect(host.begun[1]?.compaction).toBeUndefined();
  });

  it('refuses while a turn runs or waits, and on a closed session, changing nothing', async () => {
    const { host, chassis, events } = setup();
    await chassis.send('one');
    await chassis.send('two');
    expect(() => chassis.compact(undefined)).toThrow(
      expect.objectContaining({ code: 'invalid_input', data: { reason: 'turn_running' } }),
    );
    expect(host.begun.map((turn) => turn.input.text)).toEqual(['one']);
    expect(chassis.queued.map((turn) => turn.input.text)).toEqual(['two']);
    chassis.end('requested');
    await tick();
    expect(() => chassis.compact(undefined)).toThrow(
      expect.objectContaining({ code: 'invalid_input', data: { reason: 'session_closed' } }),
    );
    expect(events.filter((event) => event.type === 'turn.started')).toHaveLength(2);
  });
});
