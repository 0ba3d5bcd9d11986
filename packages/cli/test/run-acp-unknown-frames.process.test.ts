// `reins run --json` against the fake ACP agent sending what a newer or broken agent would mid-turn
// (issue 14: a tool kind and a stop reason the pinned SDK does not know): the run still exits 0,
// the frames are passthrough events with one warning, and nothing crashes the CLI.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

const FAKE = fakeHarnessPath('acp');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-cli-acp-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reins run -H acp with frames from a newer agent', () => {
  it('an unknown stop reason and tool kind mid-turn: exit 0, passthrough and a warning', async () => {
    const scenario = {
      replies: [
        {
          steps: [
            { text: 'Working. ' },
            { update: { sessionUpdate: 'tool_call', toolCallId: 'x1', title: 'warp', kind: 'teleport' } },
            { update: { sessionUpdate: 'tool_call_update', toolCallId: 'x1', status: 'completed' } },
            { text: 'Done.' },
            { stop: 'future_reason' },
          ],
        },
      ],
    };
    const result = await runCli(['run', '-H', 'acp', '--json', '-C', dir, 'go'], {
      env: { PATH: process.env.PATH, HOME: dir, REINS_ACP_COMMAND: FAKE, FAKE_ACP_SCENARIO: JSON.stringify(scenario) },
    });
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    expect(result.code).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ReinsEvent);
    const terminal = events.find((event) => event.type === 'turn.completed');
    expect(terminal).toMatchObject({ outcome: { status: 'completed' }, stopReason: 'future_reason' });
    const unknown = events.filter((event) => event.type === 'passthrough' && event.reason === 'unknown');
    expect(unknown.map((event) => event.type === 'passthrough' && event.frame)).toContainEqual({
      stopReason: 'future_reason',
    });
    const warning = events.find(
      (event) =>
        event.type === 'notice' &&
        event.kind === 'warning' &&
        (event.data as { reason?: string } | undefined)?.reason === 'unknown',
    );
    expect(warning).toBeDefined();
    const text = events
      .filter((event) => event.type === 'item.completed' && event.item.kind === 'agent_message')
      .map((event) => (event.type === 'item.completed' && event.item.kind === 'agent_message' ? event.item.text : ''))
      .join('');
    expect(text).toContain('Done.');
    expect(events.at(-1)?.type).toBe('session.closed');
  });
});
