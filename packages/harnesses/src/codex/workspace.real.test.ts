// Real Codex (pinned), hermetic: posture `workspace` (Codex's own workspace-write sandbox) lets a
// shell write inside the cwd and stops one to /root as a failed tool call, not a crashed turn; and a
// checkpoint measures a shell command's edit, `revert` restores the bytes and takes the thread back
// (thread/revert), so the next model request no longer holds the reverted turn.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReinsEvent, ToolCallItem } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

const completedTools = (events: readonly ReinsEvent[]): ToolCallItem[] =>
  events.flatMap((event) => (event.type === 'item.completed' && event.item.kind === 'tool_call' ? [event.item] : []));

describe('codex real: workspace posture and checkpoints', () => {
  let rig: CodexRig | undefined;
  const outside = `/root/reins-workspace-probe-${randomUUID()}.txt`;
  afterEach(async () => {
    rmSync(outside, { force: true });
    await rig?.cleanup();
    rig = undefined;
  });

  it('workspace: a write inside the cwd lands, one to /root is refused as a failed tool call', async () => {
    rig = await codexRig('workspace-posture');
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
    const tools = completedTools(recorder.turnEvents(sent.turnId));
    const refusal = /Read-only file system|Permission denied|Operation not permitted/;
    const refused = tools.find((tool) => tool.tool.title?.includes(outside));
    if (refused) {
      // Reported by Codex: a failed tool call with the sandbox's own message.
      expect(refused.status).toBe('failed');
      expect(refused.output?.text ?? '').toMatch(refusal);
    } else {
      // Codex 0.171.0 sometimes runs a command its sandbox stops without any item/started or item/completed
      // (recorded: the model gets the failed output, the client nothing; docs/harnesses/codex.md): Reins has
      // nothing to show then, and the turn still ends completed. The refusal reached the model, and Reins
      // reported no other tool call in its place.
      const outputs = rig.server.requests.flatMap((request) =>
        ((request.body as { input?: { type?: string; output?: unknown }[] } | undefined)?.input ?? [])
          .filter((item) => item.type === 'function_call_output')
          .map((item) => JSON.stringify(item.output)),
      );
      expect(
        outputs.some((output) => refusal.test(output)),
        `the tool outputs the model got: ${outputs}`,
      ).toBe(true);
      expect(tools.map((tool) => tool.tool.title)).toEqual(["/bin/bash -lc 'echo inside > inside.txt'"]);
    }
    await recorder.close();
  });

  it("checkpoint: a shell command's edit is in the diff; revert restores the bytes and the thread", async () => {
    rig = await codexRig('checkpoint-revert');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@localhost', ...args], { cwd: rig?.workdir });
    writeFileSync(join(rig.workdir, 'tracked.txt'), 'original\n');
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    const head = git('rev-parse', 'HEAD').toString();
    rig.server.enqueue(reply().shell("printf 'changed by a command\\n' > tracked.txt"), reply().text('Edited.'));
    const { session, recorder } = await rig.open({ checkpoints: true });
    const sent = await session.send('REVERTED-TURN-MARKER: change tracked.txt.');
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    const checkpoint = await recorder.waitFor(
      (event) => event.type === 'checkpoint' && event.turnId === sent.turnId,
      'the checkpoint',
    );
    if (checkpoint.type !== 'checkpoint') throw new Error('not a checkpoint');
    expect(checkpoint.changes).toEqual([
      expect.objectContaining({
        path: 'tracked.txt',
        kind: 'modified',
        diff: expect.stringContaining('+changed by a command'),
      }),
    ]);

    const result = await session.revert?.(sent.turnId);
    expect(result).toEqual({ turnId: sent.turnId, files: ['tracked.txt'], conversation: 'reverted' });
    expect(readFileSync(join(rig.workdir, 'tracked.txt'), 'utf8')).toBe('original\n');
    expect(git('rev-parse', 'HEAD').toString()).toBe(head);
    expect(git('status', '--porcelain').toString()).toBe('');

    rig.server.enqueue(reply().text('Fresh start.'));
    const next = await session.send('What did I ask before?');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    const requests = await rig.server.waitForRequests(3);
    expect(JSON.stringify(requests[0]?.body)).toContain('REVERTED-TURN-MARKER');
    expect(JSON.stringify(requests[2]?.body)).not.toContain('REVERTED-TURN-MARKER');
    await recorder.close();
  });
});
