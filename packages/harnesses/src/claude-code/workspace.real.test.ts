// Real Claude Code, current pin, hermetic: posture `workspace` (Claude Code's own sandbox, bubblewrap
// and socat on Linux) lets a Bash write inside the cwd and stops one to /root as a failed tool call,
// not a crashed turn. Where socat or bwrap is missing the test does not run: Reins refuses the posture
// up front then (posture.test.ts), as Claude Code 2.1.332 itself does ("sandbox required but unavailable").
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ReinsEvent, ToolCallItem } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';
import { missingSandboxTools } from './posture.js';

const completedTools = (events: readonly ReinsEvent[]): ToolCallItem[] =>
  events.flatMap((event) => (event.type === 'item.completed' && event.item.kind === 'tool_call' ? [event.item] : []));

describe('claude-code real: workspace posture', () => {
  let rig: ClaudeRig | undefined;
  const outside = `/root/reins-workspace-probe-${randomUUID()}.txt`;
  afterEach(async () => {
    rmSync(outside, { force: true });
    await rig?.cleanup();
    rig = undefined;
  });

  const missing = missingSandboxTools(process.env.PATH);

  it.runIf(missing.length === 0)(
    'a Bash write inside the cwd lands, one to /root is refused as a failed tool call',
    async () => {
      rig = await claudeRig('workspace-posture');
      rig.server.enqueue(
        reply().shell('echo inside > inside.txt'),
        reply().shell(`echo outside > ${outside}`),
        reply().text('One write worked, one was refused.'),
      );
      const { session, recorder } = await rig.open({ posture: 'workspace' });
      const sent = await session.send('Write one file here and one in /root.');
      const terminal = await recorder.terminalOf(sent);
      expect(terminal.outcome).toEqual({ status: 'completed' });
      expect(readFileSync(join(rig.workdir, 'inside.txt'), 'utf8')).toBe('inside\n');
      expect(existsSync(outside)).toBe(false);
      const refused = completedTools(recorder.turnEvents(sent.turnId)).find((tool) =>
        tool.tool.title?.includes(outside),
      );
      expect(refused?.status).toBe('failed');
      expect(refused?.output?.text ?? '').toMatch(/Read-only file system|Permission denied|Operation not permitted/);
      await recorder.close();
    },
  );
});
