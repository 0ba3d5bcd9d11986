// A stored conversation -> Codex turns. What the harness's transcript says, put together with the
// bridge's record of how each turn it ran ended; every turn checked against the pinned Codex schema.
import type { Item } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { codexSchema } from '../../test/support/codex-schema.js';
import type { SessionRecord } from '../records.js';
import { historyTurns, recordedInputs, storedInputs } from './history.js';
import type { Turn } from './wire.js';

const context = { threadId: 'thread-1', cwd: '/work' };
const user = (id: string, text: string, extra: Partial<Item> = {}): Item =>
  ({ kind: 'user_message', id, status: 'completed', text, replay: true, ...extra }) as Item;
const agent = (id: string, text: string): Item => ({ kind: 'agent_message', id, status: 'completed', text });

function valid(turns: Turn[]): Turn[] {
  const answer = { result: { data: turns, nextCursor: null, backwardsCursor: null } };
  expect(codexSchema().response('thread/turns/list', answer)).toBeUndefined();
  return turns;
}

const record = (turns: SessionRecord['turns']): SessionRecord => ({
  id: 'thread-1',
  cwd: '/work',
  createdAtMs: 1,
  updatedAtMs: 2,
  turns,
});

describe('historyTurns', () => {
  it('without a record: one completed turn per user message, with stable UUID ids', () => {
    const items = [
      user('u1', 'Remember ZEBRA'),
      agent('a1', 'Noted.'),
      user('u2', 'Which word?'),
      agent('a2', 'ZEBRA.'),
    ];
    const turns = valid(historyTurns(items, context, undefined));
    expect(turns.map((turn) => [turn.status, turn.items.map((item) => item.type)])).toEqual([
      ['completed', ['userMessage', 'agentMessage']],
      ['completed', ['userMessage', 'agentMessage']],
    ]);
    expect(turns[0]?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(historyTurns(items, context, undefined).map((turn) => turn.id)).toEqual(turns.map((turn) => turn.id));
  });

  it('never makes harness machinery a user turn: interrupt markers, raw or already classified', () => {
    const items = [
      user('u1', 'Count slowly'),
      agent('a1', 'One,'),
      user('u2', '[Request interrupted by user]'),
      user('u3', 'You interrupted the turn.', { origin: 'notification' } as Partial<Item>),
      user('u4', '[Request interrupted by user for tool use]'),
      user('u5', 'Say done'),
      agent('a5', 'done'),
    ];
    const turns = valid(historyTurns(items, context, undefined));
    const userTexts = turns.flatMap((turn) =>
      turn.items.flatMap((item) =>
        item.type === 'userMessage' ? item.content.map((part) => (part.type === 'text' ? part.text : '')) : [],
      ),
    );
    expect(userTexts).toEqual(['Count slowly', 'Say done']);
    expect(storedInputs(items)).toBe(2);
    // A person who types the marker inside a sentence keeps their message.
    expect(storedInputs([user('u1', 'Why did I see [Request interrupted by user] earlier?')])).toBe(1);
  });

  it('keeps interrupted, failed and steered turns as the record says they ended', () => {
    const items = [
      user('u1', 'Count to a million'),
      agent('a1', 'One, two'),
      user('u2', 'Hello?'),
      // Claude Code 2.1.197 writes a failed turn's error into the transcript as the assistant's text.
      agent('a2', 'API Error: 400 scripted'),
      user('u3', 'Write a poem'),
      user('u4', 'about cats'),
      agent('a3', 'Cats purr.'),
    ];
    const turns = valid(
      historyTurns(
        items,
        context,
        record([
          {
            id: 'turn-a',
            status: 'interrupted',
            inputs: 1,
            firstInput: 'Count to a million',
            startedAtMs: 1000,
            completedAtMs: 3000,
          },
          {
            id: 'turn-b',
            status: 'failed',
            inputs: 1,
            firstInput: 'Hello?',
            startedAtMs: 4000,
            completedAtMs: 4500,
            error: { message: 'API Error: 400 scripted', codexErrorInfo: 'badRequest', additionalDetails: null },
          },
          {
            id: 'turn-c',
            status: 'completed',
            inputs: 2,
            firstInput: 'Write a poem',
            startedAtMs: 5000,
            completedAtMs: 6000,
          },
        ]),
      ),
    );
    expect(turns.map((turn) => [turn.id, turn.status, turn.items.map((item) => item.id)])).toEqual([
      ['turn-a', 'interrupted', ['u1', 'a1']],
      ['turn-b', 'failed', ['u2']],
      ['turn-c', 'completed', ['u3', 'u4', 'a3']],
    ]);
    expect(turns[1]?.error).toMatchObject({ message: 'API Error: 400 scripted', codexErrorInfo: 'badRequest' });
    expect(turns[0]).toMatchObject({ startedAt: 1, completedAt: 3, durationMs: 2000 });
  });

  it('finds recorded turns by their first input among turns made elsewhere, and hides harness machinery', () => {
    const items = [
      user('u0', 'made in the CLI directly'),
      agent('a0', 'ok'),
      user('s', '<command-name>/clear</command-name>', { origin: 'synthetic' }),
      user('u1', 'made through the bridge'),
      agent('a1', 'sure'),
    ];
    const turns = valid(
      historyTurns(
        items,
        context,
        record([
          {
            id: 'bridge-turn',
            status: 'interrupted',
            inputs: 1,
            firstInput: 'made through the bridge',
            startedAtMs: 1,
          },
        ]),
      ),
    );
    expect(turns.map((turn) => [turn.status, turn.items.map((item) => item.id)])).toEqual([
      ['completed', ['u0', 'a0']],
      ['interrupted', ['u1', 'a1']],
    ]);
    expect(turns[1]?.id).toBe('bridge-turn');
  });

  it('gives the items in the view asked for: summary is the user messages and the last answer', () => {
    const items = [
      user('u1', 'Go'),
      { kind: 'reasoning', id: 'r', status: 'completed', text: 'hm' } as Item,
      agent('a1', 'first'),
      agent('a2', 'last'),
    ];
    expect(valid(historyTurns(items, context, undefined, 'summary'))[0]?.items.map((item) => item.id)).toEqual([
      'u1',
      'a2',
    ]);
    expect(valid(historyTurns(items, context, undefined, 'notLoaded'))[0]).toMatchObject({
      items: [],
      itemsView: 'notLoaded',
    });
  });

  it('counts inputs to tell a transcript that is still being written', () => {
    expect(storedInputs([user('u1', 'a'), agent('a1', 'b'), user('s', 'x', { origin: 'synthetic' })])).toBe(1);
    expect(recordedInputs(record([{ id: 't', status: 'completed', inputs: 2, startedAtMs: 1 }]))).toBe(2);
    expect(recordedInputs(undefined)).toBe(0);
  });
});
