// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332): tool turns. Bash becomes a command item (output text + structured
// stdout/stderr, exit code), Write a file_change item whose file really exists afterwards.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolCallItem } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

function toolItems(
  events: ReturnType<NonNullable<ClaudeRig>['server']['requests']['slice']> | unknown[],
): ToolCallItem[] {
  return (events as Array<{ type: string; item?: ToolCallItem }>)
    .filter((event) => event.type === 'item.completed' && event.item?.kind === 'tool_call')
    .map((event) => event.item as ToolCallItem);
}

describe('claude-code real: tools', () => {
  test('Bash tool turn: command item with output and exit code', async () => {
    rig = await claudeRig('bash-turn');
    rig.server.enqueue(reply().shell('echo hi-from-bash'));
    rig.server.enqueue(reply().text('The command printed hi-from-bash.'));
    const { session, recorder } = await rig.open();
    const turn = await session.send('Run echo');
    const done = await recorder.terminalOf(turn);
    expect(done.outcome).toEqual({ status: 'completed' });
    const [tool] = toolItems(recorder.turnEvents(turn.turnId));
    expect(tool).toMatchObject({
      status: 'completed',
      tool: { kind: 'command', name: 'Bash', title: 'echo hi-from-bash' },
      input: { command: 'echo hi-from-bash' },
      exitCode: 0,
    });
    expect(tool?.output?.text).toContain('hi-from-bash');
    expect(tool?.output?.structured).toMatchObject({ stdout: 'hi-from-bash', stderr: '' });
    // The tool input streamed as deltas before the call ran.
    expect(
      recorder
        .turnEvents(turn.turnId)
        .some((event) => event.type === 'item.delta' && event.kind === 'tool_input' && event.itemId === tool?.id),
    ).toBe(true);
    // The second request carried the tool result back to the model.
    expect(JSON.stringify(rig.server.requests.at(-1)?.body)).toContain('hi-from-bash');
    await recorder.close();
  });

  test('Write turn: the file is really written and reported as a file change', async () => {
    rig = await claudeRig('write-turn');
    const target = join(rig.workdir, 'hello.txt');
    rig.server.enqueue(reply().writeFile(target, 'hello from reins\n'));
    rig.server.enqueue(reply().text('Wrote the file.'));
    const { session, recorder } = await rig.open();
    const turn = await session.send('Write hello.txt');
    const done = await recorder.terminalOf(turn);
    expect(done.outcome).toEqual({ status: 'completed' });
    expect(await readFile(target, 'utf8')).toBe('hello from reins\n');
    const [tool] = toolItems(recorder.turnEvents(turn.turnId));
    expect(tool).toMatchObject({
      status: 'completed',
      tool: { kind: 'file_change', name: 'Write' },
      changes: [{ path: target, kind: 'add' }],
    });
    expect(tool?.output?.structured).toMatchObject({ type: 'create', filePath: target });
    await recorder.close();
  });
});
