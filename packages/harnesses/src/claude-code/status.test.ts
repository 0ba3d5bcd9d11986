// session.status from Claude Code's own state (status.ts), on recorded frames: the process bridge hands
// 2.1.332's `session_state_changed` on (it takes off the `sdk_host_only` mark the Agent SDK drops such
// frames for), and the session's frames (frames.ts, on a real chassis) make it the status. On 2.1.332 a
// background subagent keeps the session `running` past the launching turn's result until Claude Code
// says `idle` (after the turn it starts itself); Reins' own inference would have said `idle` in between.
// On 2.1.197 (no such frame) the status is still inferred.
import { join } from 'node:path';
import type { EmitMeta, ReinsEvent, SessionStatus } from '@reins/core';
import { readFixtureSync } from '@reins/testkit';
import { describe, expect, test } from 'vitest';
import { FIXTURES_DIR } from '../../test/support/claude-rig.js';
import { SessionChassis } from '../runtime/chassis/index.js';
import { ClaudeConversation } from './conversation.js';
import { ClaudeFrames, type Plan } from './frames.js';
import { ClaudeMcpWatch } from './mcp-watch.js';
import { handOverSessionState } from './process-bridge.js';
import { ClaudeStatus, harnessStateOf, statusOf } from './status.js';
import { createClaudeTranslation } from './translate.js';
import { OwedResults } from './turns.js';
import type { SDKMessage } from './wire.js';

type Frame = Record<string, unknown>;

function fixture(name: string): Frame[] {
  return readFixtureSync(join(FIXTURES_DIR, name))
    .frames.filter((line) => line.dir === 'out' && typeof line.frame === 'object' && line.frame !== null)
    .map((line) => line.frame as Frame);
}

/**
 * What the Agent SDK 0.3.332 yields of the CLI's stdout once the bridge handed each line over: control
 * frames are its own, and so is any frame still marked `sdk_host_only: true` (its readMessages loop).
 */
function throughBridgeAndSdk(frames: Frame[]): Frame[] {
  return frames
    .map((frame) => JSON.parse(handOverSessionState(JSON.stringify(frame))) as Frame)
    .filter((frame) => !String(frame.type).startsWith('control_') && frame.sdk_host_only !== true);
}

/** A session's frame handling on a real chassis: the turn is sent, then the recorded frames arrive. */
async function replay(name: string, options: { bridge?: boolean } = {}): Promise<ReinsEvent[]> {
  const frames = fixture(name);
  let status: ClaudeStatus | undefined;
  const chassis = new SessionChassis<Plan>(
    { beginTurn: () => status?.inferred('running') },
    { harness: 'claude-code', displayName: 'Claude Code', sessionId: 'cc_test', structuredOutput: 'native' },
  );
  status = new ClaudeStatus((next, meta: EmitMeta) =>
    chassis.stream.emit({ type: 'session.status', status: next }, meta),
  );
  const events: ReinsEvent[] = [];
  const collected = (async () => {
    for await (const event of chassis.events) events.push(event);
  })();
  const claude = new ClaudeFrames({
    chassis,
    translation: createClaudeTranslation(),
    owed: new OwedResults(),
    status,
    mcp: new ClaudeMcpWatch([], { current: () => undefined, closed: () => false, warn: () => {}, timeoutMs: 1 }),
    conversation: new ClaudeConversation(undefined),
    ephemeral: false,
  });
  claude.opened = true;
  await chassis.send('Delegate please');
  const handed = options.bridge === false ? frames.filter((frame) => frame.sdk_host_only !== true) : frames;
  for (const frame of throughBridgeAndSdk(handed)) claude.onMessage(frame as unknown as SDKMessage);
  chassis.end('requested');
  await collected;
  return events;
}

const statuses = (events: ReinsEvent[]) => events.flatMap((event) => (event.type === 'session.status' ? [event] : []));

describe('handOverSessionState (process bridge)', () => {
  test('2.1.332 session_state_changed loses only its sdk_host_only mark; every other recorded line is untouched', () => {
    let handed = 0;
    for (const name of ['background-subagent.2.1.332.jsonl', 'subagent.2.1.332.jsonl', 'ask-allow.2.1.332.jsonl']) {
      for (const frame of fixture(name)) {
        const line = JSON.stringify(frame);
        const after = handOverSessionState(line);
        if (frame.subtype === 'session_state_changed') {
          const { sdk_host_only: mark, ...rest } = frame;
          expect(mark).toBe(true);
          expect(JSON.parse(after)).toEqual(rest);
          handed++;
        } else {
          expect(after).toBe(line);
        }
      }
    }
    expect(handed).toBe(8);
  });

  test('a line that only names the subtype, or is not marked, or is not JSON, is passed as it is', () => {
    for (const line of [
      '{"type":"assistant","message":{"content":[{"type":"text","text":"\\"session_state_changed\\""}]}}',
      '{"type":"system","subtype":"session_state_changed","state":"idle","sdk_host_only":false}',
      '{"type":"system","subtype":"session_state_changed","state":"idle"}',
      '{"type":"system","subtype":"session_state_changed",',
      '{"type":"result","subtype":"success"}',
    ])
      expect(handOverSessionState(line)).toBe(line);
  });
});

describe('ClaudeStatus', () => {
  test('reads the states Claude Code names, and nothing else', () => {
    expect(['idle', 'running', 'requires_action', 'busy', 1, undefined].map(statusOf)).toEqual([
      'idle',
      'running',
      'requires_action',
      undefined,
      undefined,
      undefined,
    ]);
    expect(harnessStateOf({ type: 'system', subtype: 'session_state_changed', state: 'idle' })).toBe('idle');
    expect(harnessStateOf({ type: 'system', subtype: 'session_state_changed', state: 'asleep' })).toBeUndefined();
    expect(harnessStateOf({ type: 'system', subtype: 'status', state: 'idle' })).toBeUndefined();
  });

  test('inferences count until Claude Code sends its own state, and never after', () => {
    const seen: SessionStatus[] = [];
    const status = new ClaudeStatus((next) => seen.push(next));
    expect(status.fromHarness).toBe(false);
    status.inferred('running');
    status.harness('requires_action', {});
    expect(status.fromHarness).toBe(true);
    status.inferred('idle');
    status.harness('idle', {});
    expect(seen).toEqual(['running', 'requires_action', 'idle']);
  });
});

describe('session.status on recorded frames (frames.ts on a real chassis)', () => {
  test('2.1.332 background subagent: running from the harness until its own idle, after the turn it started itself', async () => {
    const events = await replay('background-subagent.2.1.332.jsonl');
    const terminals = events.filter((event) => event.type === 'turn.completed');
    expect(terminals.map((event) => event.type === 'turn.completed' && event.outcome.status)).toEqual([
      'completed',
      'completed',
    ]);
    const all = statuses(events);
    // After the send's own `running` every status is Claude Code's: none inferred on a result or on the
    // background level.
    expect(all.map((event) => [event.status, event.native?.method])).toEqual([
      ['running', undefined],
      ['running', 'system/session_state_changed'],
      ['idle', 'system/session_state_changed'],
    ]);
    // The idle comes after both turns ended: the main result left the session running (background work).
    const [first, second] = terminals as [ReinsEvent, ReinsEvent];
    const idle = all.at(-1) as ReinsEvent;
    expect(idle.seq).toBeGreaterThan(second.seq);
    expect(all.filter((event) => event.seq > first.seq && event.seq < second.seq)).toEqual([]);
    // The background level (background_tasks_changed) is shown, not turned into a status.
    const levels = events.filter(
      (event) => event.type === 'passthrough' && event.native?.method === 'system/background_tasks_changed',
    );
    expect(levels).toHaveLength(2);
  });

  test('the same frames with the mark left on (what the SDK would swallow): the status is inferred, idle in between', async () => {
    const events = await replay('background-subagent.2.1.332.jsonl', { bridge: false });
    const terminals = events.filter((event) => event.type === 'turn.completed') as [ReinsEvent, ReinsEvent];
    const all = statuses(events);
    expect(all.some((event) => event.native?.method === 'system/session_state_changed')).toBe(false);
    // Reins' inference says idle once the task ended, before the turn Claude Code then starts: the
    // harness's own state (the test above) does not.
    const between = all.filter((event) => event.seq > terminals[0].seq && event.seq < terminals[1].seq);
    expect(between.map((event) => event.status)).toContain('idle');
  });

  test('2.1.332 ask posture: requires_action and back to running come from Claude Code, around its can_use_tool', async () => {
    const events = await replay('ask-allow.2.1.332.jsonl');
    expect(statuses(events).map((event) => [event.status, event.native?.method])).toEqual([
      ['running', undefined],
      ['running', 'system/session_state_changed'],
      ['requires_action', 'system/session_state_changed'],
      ['running', 'system/session_state_changed'],
      ['idle', 'system/session_state_changed'],
    ]);
  });

  test('2.1.197 (no state frames): running on send, idle at the result, as before', async () => {
    const events = await replay('subagent.2.1.197.jsonl');
    const terminal = events.find((event) => event.type === 'turn.completed') as ReinsEvent;
    const all = statuses(events);
    expect(all.map((event) => event.status)).toEqual(['running', 'idle']);
    expect(all.every((event) => event.native?.method !== 'system/session_state_changed')).toBe(true);
    expect((all.at(-1) as ReinsEvent).seq).toBeGreaterThan(terminal.seq);
  });
});
