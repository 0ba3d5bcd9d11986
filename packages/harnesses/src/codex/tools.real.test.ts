// Real Codex (pinned), hermetic: a shell command and a file edit, each as one tool_call item.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolCallItem } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

function completedTools(events: readonly import('@reins/core').ReinsEvent[]): ToolCallItem[] {
  return events.flatMap((event) =>
    event.type === 'item.completed' && event.item.kind === 'tool_call' ? [event.item] : [],
  );
}

describe('codex real: tools', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('runs a shell command: tool_call command with output, exit code and command actions', async () => {
    rig = await codexRig('shell-command');
    rig.server.enqueue(reply().shell('echo reins-shell-ok'), reply().text('The command printed reins-shell-ok.'));
    const { session, recorder } = await rig.open();
    const sent = await session.send('Run the echo command.');
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });

    const turn = recorder.turnEvents(sent.turnId);
    const started = turn.find((event) => event.type === 'item.started' && event.item.kind === 'tool_call');
    expect(started).toBeDefined();
    const [tool] = completedTools(turn);
    expect(tool?.tool.kind).toBe('command');
    expect(tool?.status).toBe('completed');
    expect(tool?.exitCode).toBe(0);
    expect(tool?.output?.text).toContain('reins-shell-ok');
    expect(tool?.tool.title).toContain('echo reins-shell-ok');
    expect(tool?.output?.structured).toMatchObject({ commandActions: expect.any(Array) });
    if (started?.type === 'item.started') expect(started.item.id).toBe(tool?.id);

    // The second request carries the command's output back to the model.
    const requests = await rig.server.waitForRequests(2);
    expect(JSON.stringify(requests[1]?.body)).toContain('reins-shell-ok');
    await recorder.close();
  });

  it('edits a file: the file is written on disk and the change carries a diff', async () => {
    rig = await codexRig('file-edit');
    rig.server.enqueue(reply().writeFile('notes.txt', 'written by codex\n'), reply().text('Created notes.txt.'));
    const { session, recorder } = await rig.open();
    const sent = await session.send('Create notes.txt.');
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });

    expect(await readFile(join(rig.workdir, 'notes.txt'), 'utf8')).toBe('written by codex\n');
    const [tool] = completedTools(recorder.turnEvents(sent.turnId));
    expect(tool?.tool.kind).toBe('file_change');
    expect(tool?.status).toBe('completed');
    expect(tool?.changes).toHaveLength(1);
    expect(tool?.changes?.[0]).toMatchObject({ kind: 'add', path: expect.stringContaining('notes.txt') });
    expect(tool?.changes?.[0]?.diff).toContain('written by codex');
    await recorder.close();
  });
});
