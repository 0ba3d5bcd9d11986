// Real Claude Code, current pin, hermetic: Session.revert after a turn that edited a file through a
// shell command puts the bytes back, and the conversation goes back too (a fork kept up to the message
// before the turn, --resume-session-at): the next turn's model request no longer holds the reverted
// turn's prompt, and the user's branch, index and stash are untouched. Backs the `revert` capability.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: revert', () => {
  it('puts a shell edit back byte for byte and drops the turn from the next model request', async () => {
    rig = await claudeRig('revert');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@localhost', ...args], {
        cwd: rig?.workdir,
      }).toString();
    const file = join(rig.workdir, 'notes.txt');
    const original = 'first line\nno newline at the end';
    git('init', '-q');
    writeFileSync(file, original);
    git('add', 'notes.txt');
    git('commit', '-qm', 'start');
    const userState = () => [git('rev-parse', 'HEAD'), git('stash', 'list'), git('status', '--porcelain')].join('|');

    rig.server.enqueue(
      reply().text('Noted: keep-marker.'),
      reply().shell('printf "rewritten\\n" > notes.txt'),
      reply().text('Rewrote notes.txt.'),
      reply().text('Here I am.'),
    );
    const { session, recorder } = await rig.open({ checkpoints: true });
    const kept = await session.send('Remember keep-marker.');
    expect((await recorder.terminalOf(kept)).outcome).toEqual({ status: 'completed' });
    const state = userState();
    const undone = await session.send('Rewrite notes.txt, revert-marker.');
    expect((await recorder.terminalOf(undone)).outcome).toEqual({ status: 'completed' });
    expect(readFileSync(file, 'utf8')).toBe('rewritten\n');

    const result = await session.revert?.(undone.turnId);
    expect(result).toEqual({ turnId: undone.turnId, files: ['notes.txt'], conversation: 'forked' });
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(userState()).toBe(state);

    const next = await session.send('Are you there?');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    const body = JSON.stringify(rig.server.requests.filter((request) => request.scripted).at(-1)?.body);
    expect(body).toContain('Are you there?');
    expect(body).toContain('keep-marker');
    expect(body).not.toContain('revert-marker');
    expect(body).not.toContain('rewritten');
    await recorder.close();
  });
});
