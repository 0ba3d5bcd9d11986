// Passthrough frame types as the canary names them, and the counting wrapper around a target's harness.
import type { Harness, ReinsEvent, Session } from '@reins/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../conformance/target.js';
import { countingTarget, PassthroughCounter, passthroughFrameType } from './passthrough.js';

const passthrough = (frame: unknown, native?: { source: string; method?: string; frame: unknown }) =>
  ({
    type: 'passthrough',
    seq: 1,
    harness: 'codex',
    sessionId: 's',
    turnId: null,
    at: 0,
    frame,
    ...(native ? { native } : {}),
  }) as Extract<ReinsEvent, { type: 'passthrough' }>;

describe('passthroughFrameType', () => {
  it('names JSON-RPC methods, ACP update kinds, stream-json type/subtype', () => {
    expect(passthroughFrameType(passthrough({ method: 'thread/search/partial', params: {} }))).toBe(
      'thread/search/partial',
    );
    expect(
      passthroughFrameType(
        passthrough({ method: 'session/update', params: { update: { sessionUpdate: 'available_commands_update' } } }),
      ),
    ).toBe('session/update:available_commands_update');
    expect(passthroughFrameType(passthrough({ type: 'system', subtype: 'background_tasks_changed' }))).toBe(
      'system/background_tasks_changed',
    );
    expect(passthroughFrameType(passthrough({ type: 'result' }))).toBe('result');
    expect(passthroughFrameType(passthrough('not json', { source: 'stdout', method: 'x/y', frame: 'not json' }))).toBe(
      'x/y',
    );
    expect(passthroughFrameType(passthrough(42))).toBe('(unnamed)');
    // An ACP update is the frame; the method is on the native record.
    expect(
      passthroughFrameType(
        passthrough(
          { sessionUpdate: 'available_commands_update' },
          { source: 'stdout', method: 'session/update', frame: {} },
        ),
      ),
    ).toBe('session/update:available_commands_update');
    expect(
      passthroughFrameType(passthrough({ method: 'item/started', params: { item: { type: 'userMessage' } } })),
    ).toBe('item/started:userMessage');
    expect(passthroughFrameType({ ...passthrough({ method: 'x/y' }), reason: 'unknown' })).toBe('x/y [unknown]');
  });
});

describe('countingTarget', () => {
  it('counts the passthrough events of every session the harness creates, and hands every event on', async () => {
    const events: ReinsEvent[] = [
      passthrough({ type: 'system', subtype: 'a' }),
      { ...passthrough({}), type: 'session.status', status: 'idle' } as unknown as ReinsEvent,
      passthrough({ type: 'system', subtype: 'a' }),
      passthrough({ method: 'm' }),
    ];
    class FakeSession {
      readonly #secret = 'private fields still work';
      get events(): AsyncIterable<ReinsEvent> {
        return (async function* () {
          yield* events;
        })();
      }
      secret() {
        return this.#secret;
      }
    }
    const harness = { id: 'codex', createSession: async () => new FakeSession() } as unknown as Harness;
    const target: ConformanceTarget = {
      id: 'codex',
      setup: async () => ({ harness, models: { primary: 'a', alternate: 'b' } }),
    };
    const counter = new PassthroughCounter();
    const setup = await countingTarget(target, counter).setup({} as never, '/tmp');
    const session = (await setup.harness.createSession({ cwd: '/tmp' })) as Session & { secret(): string };
    const seen: ReinsEvent[] = [];
    for await (const event of session.events) seen.push(event);
    expect(seen).toEqual(events);
    expect(session.secret()).toBe('private fields still work');
    expect(counter.take()).toEqual({ m: 1, 'system/a': 2 });
    expect(counter.take()).toEqual({});
  });
});
