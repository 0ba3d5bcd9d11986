// Real Claude Code (current pin), hermetic: the resume users meet most (issue 25) ends in resume_failed
// with Claude Code's own reason, never a fresh start. A conversation whose transcript was deleted
// (CLAUDE_CONFIG_DIR/projects/<cwd>/<id>.jsonl) is "No conversation found" to the CLI.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';
import { createClaudeCodeHarness } from './adapter.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

async function transcriptsOf(configDir: string, nativeSessionId: string): Promise<string[]> {
  const projects = join(configDir, 'projects');
  const names = (await readdir(projects, { recursive: true })) as string[];
  return names.filter((name) => name.endsWith(`${nativeSessionId}.jsonl`)).map((name) => join(projects, name));
}

describe('claude-code real: resume failures', () => {
  test('a deleted transcript: resume_failed with "No conversation found", nothing sent to the model', async () => {
    rig = await claudeRig('resume-deleted');
    rig.server.enqueue(reply().text('Noted.'));
    const first = await rig.open();
    const turn = await first.session.send('Remember the word heron.');
    expect((await first.recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    const nativeSessionId = first.session.nativeSessionId as string;
    await first.recorder.close();
    const transcripts = await transcriptsOf(rig.home.env.CLAUDE_CONFIG_DIR as string, nativeSessionId);
    expect(transcripts).toHaveLength(1);
    await rm(transcripts[0] as string);
    const asked = rig.server.requests.filter((entry) => entry.path === '/v1/messages').length;

    const harness = createClaudeCodeHarness(rig.harnessOptions());
    let failure: unknown;
    try {
      const resumed = await harness.createSession({ cwd: rig.workdir, resume: { nativeSessionId } });
      // A CLI that checks --resume only at the first turn fails that turn instead.
      const recorder = rig.record(resumed);
      const next = await resumed.send('Which word?');
      const done = await recorder.terminalOf(next);
      failure = done.outcome.status === 'failed' ? done.outcome.error : done.outcome;
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ code: 'resume_failed', message: expect.stringMatching(/No conversation found/i) });
    expect(rig.server.requests.filter((entry) => entry.path === '/v1/messages')).toHaveLength(asked);
  });
});
