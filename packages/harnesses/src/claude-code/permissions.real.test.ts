// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332) in posture ask: the CLI asks through the SDK's canUseTool; Reins emits
// permission.requested and waits for respondToPermission. Allow runs the Write, deny leaves no file
// and settles the tool call as declined.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: ask posture', () => {
  test('ask posture: allow runs the tool', async () => {
    rig = await claudeRig('ask-allow');
    const target = join(rig.workdir, 'allowed.txt');
    rig.server.enqueue(reply().writeFile(target, 'allowed\n'));
    rig.server.enqueue(reply().text('Written.'));
    const { session, recorder } = await rig.open({ posture: 'ask' });
    const turn = await session.send('Write allowed.txt');
    const asked = await recorder.waitFor((event) => event.type === 'permission.requested', 'permission.requested');
    if (asked.type !== 'permission.requested') throw new Error('unreachable');
    expect(asked.tool).toEqual({ kind: 'file_change', name: 'Write' });
    expect(asked.input).toMatchObject({ file_path: target });
    // The adapter reports the status right after the request (same tick): wait for it, then check that
    // nothing moved the session on while the request is unanswered.
    await recorder.waitFor(
      (event) => event.type === 'session.status' && event.status === 'requires_action',
      'session.status requires_action',
    );
    expect(recorder.ofType('session.status').at(-1)?.status).toBe('requires_action');
    await session.respondToPermission(asked.requestId, { behavior: 'allow' });
    const done = await recorder.terminalOf(turn);
    expect(done.outcome).toEqual({ status: 'completed' });
    expect(await readFile(target, 'utf8')).toBe('allowed\n');
    expect(recorder.ofType('permission.resolved')[0]).toMatchObject({
      requestId: asked.requestId,
      by: 'client',
      decision: { behavior: 'allow' },
    });
    await recorder.close();
  });

  test('ask posture: deny leaves no file and declines the tool call', async () => {
    rig = await claudeRig('ask-deny');
    const target = join(rig.workdir, 'denied.txt');
    rig.server.enqueue(reply().writeFile(target, 'denied\n'));
    rig.server.enqueue(reply().text('Understood, not writing.'));
    const { session, recorder } = await rig.open({ posture: 'ask' });
    const turn = await session.send('Write denied.txt');
    const asked = await recorder.waitFor((event) => event.type === 'permission.requested', 'permission.requested');
    if (asked.type !== 'permission.requested') throw new Error('unreachable');
    await session.respondToPermission(asked.requestId, { behavior: 'deny', message: 'Not in this folder.' });
    const done = await recorder.terminalOf(turn);
    expect(done.outcome).toEqual({ status: 'completed' });
    expect(existsSync(target)).toBe(false);
    const tool = recorder
      .turnEvents(turn.turnId)
      .find((event) => event.type === 'item.completed' && event.item.kind === 'tool_call');
    expect(tool?.type === 'item.completed' && tool.item.status).toBe('declined');
    // The model was told why.
    expect(JSON.stringify(rig.server.requests.at(-1)?.body)).toContain('Not in this folder.');
    await recorder.close();
  });

  test('ask posture: no answer before the deadline denies with by timeout', async () => {
    rig = await claudeRig('ask-timeout');
    const target = join(rig.workdir, 'late.txt');
    rig.server.enqueue(reply().writeFile(target, 'late\n'));
    rig.server.enqueue(reply().text('No answer, so I stopped.'));
    const { session, recorder } = await rig.open({ posture: 'ask' }, { permissionTimeoutMs: 1500 });
    const turn = await session.send('Write late.txt');
    const done = await recorder.terminalOf(turn);
    expect(done.outcome).toEqual({ status: 'completed' });
    expect(recorder.ofType('permission.resolved')[0]).toMatchObject({ by: 'timeout', decision: { behavior: 'deny' } });
    expect(existsSync(target)).toBe(false);
    await recorder.close();
  });
});
