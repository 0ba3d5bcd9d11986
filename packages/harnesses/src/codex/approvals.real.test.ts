// Real Codex (pinned), hermetic: the `ask` posture (approvalPolicy untrusted). Codex's approval
// requests surface as permission.requested and are answered through respondToPermission.
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PermissionRequestedEvent } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

const isRequest = (event: { type: string }): event is PermissionRequestedEvent => event.type === 'permission.requested';

describe('codex real: approvals', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('asks before a command and a file edit, and runs both once allowed', async () => {
    rig = await codexRig('approvals-accept');
    rig.server.enqueue(
      reply().shell('touch approved.txt'),
      reply().writeFile('patched.txt', 'approved edit\n'),
      reply().text('Both done.'),
    );
    const { session, recorder } = await rig.open({ posture: 'ask' });
    const sent = await session.send('Touch a file, then write one.');

    const command = await recorder.waitFor(isRequest, 'the command approval');
    expect(command.tool.kind).toBe('command');
    expect(command.tool.title).toContain('touch approved.txt');
    expect(command.options.map((option) => option.kind)).toEqual(expect.arrayContaining(['allow_once', 'reject_once']));
    await session.respondToPermission(command.requestId, { behavior: 'allow' });

    const edit = await recorder.waitFor(
      (event): event is PermissionRequestedEvent => isRequest(event) && event.requestId !== command.requestId,
      'the file approval',
    );
    expect(edit.tool.kind).toBe('file_change');
    await session.respondToPermission(edit.requestId, { behavior: 'allow' });

    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    await access(join(rig.workdir, 'approved.txt'));
    expect(await readFile(join(rig.workdir, 'patched.txt'), 'utf8')).toBe('approved edit\n');
    const resolved = recorder.ofType('permission.resolved');
    expect(resolved.map((event) => [event.requestId, event.by, event.decision.behavior])).toEqual([
      [command.requestId, 'client', 'allow'],
      [edit.requestId, 'client', 'allow'],
    ]);
    expect(recorder.ofType('session.status').map((event) => event.status)).toContain('requires_action');
    await recorder.close();
  });

  it('declines a command: it does not run and its item ends declined', async () => {
    rig = await codexRig('approvals-decline');
    rig.server.enqueue(reply().shell('touch declined.txt'), reply().text('Understood, I did not run it.'));
    const { session, recorder } = await rig.open({ posture: 'ask' });
    const sent = await session.send('Touch a file.');
    const request = await recorder.waitFor(isRequest, 'the command approval');
    await session.respondToPermission(request.requestId, { behavior: 'deny' });
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    await expect(access(join(rig.workdir, 'declined.txt'))).rejects.toThrow();
    const tool = recorder
      .turnEvents(sent.turnId)
      .flatMap((event) => (event.type === 'item.completed' && event.item.kind === 'tool_call' ? [event.item] : []));
    expect(tool.map((item) => item.status)).toEqual(['declined']);
    await expect(session.respondToPermission(request.requestId, { behavior: 'allow' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await recorder.close();
  });
});
