// Real Codex (pinned), hermetic: a warm app-server opens the session's thread ahead (warmThread). Codex
// reads AGENTS.md at thread/start, so an AGENTS.md changed after that makes the session open its own
// thread, whose first model request carries the new text; a thread opened after the change is taken.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness, ReinsEvent } from '@reins/core';
import { harnessBinary, reply, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';
import { liveProcessCount } from '../runtime/child-process.js';
import { createCodexHarness } from './adapter.js';

const misses = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'notice' && (event.data as { warmThread?: string } | undefined)?.warmThread === 'missed'
      ? [(event.data as { reason: string }).reason]
      : [],
  );

describe('codex real: threads opened ahead', () => {
  let rig: CodexRig | undefined;
  let harness: Harness | undefined;
  const recorders: SessionRecorder[] = [];
  afterEach(async () => {
    await SessionRecorder.closeAll(recorders.splice(0));
    await harness?.warm?.(0);
    await rig?.cleanup();
    rig = undefined;
    expect(liveProcessCount()).toBe(0);
  });

  it('an AGENTS.md changed after the thread opened ahead: the session opens its own with the new text; the next thread is taken', async () => {
    rig = await codexRig('thread-ahead');
    const workdir = rig.workdir;
    harness = createCodexHarness({
      binaryPath: harnessBinary('codex').command,
      baseEnv: rig.home.env,
      requestTimeoutMs: 15_000,
      warmThread: { cwd: workdir },
    });
    rig.server.when('Which codeword?', reply().text('Noted.'), { persistent: true });
    writeFileSync(join(workdir, 'AGENTS.md'), 'The codeword is OLDWORD.\n');
    await harness.warm?.(1);
    writeFileSync(join(workdir, 'AGENTS.md'), 'The codeword is NEWWORD.\n');

    const changed = new SessionRecorder(await harness.createSession({ cwd: workdir }), 20_000);
    recorders.push(changed);
    expect((await changed.turn('Which codeword? (1)')).outcome).toEqual({ status: 'completed' });
    const firstBody = JSON.stringify(rig.server.requests.find((request) => request.userText.includes('(1)'))?.body);
    expect(firstBody).toContain('NEWWORD');
    expect(firstBody).not.toContain('OLDWORD');
    expect(misses(changed.events)).toEqual(['instructions_changed']);
    await changed.close();

    // A warm app-server started now opens its thread with the new AGENTS.md, and the session takes it.
    await harness.warm?.(1);
    const taken = new SessionRecorder(await harness.createSession({ cwd: workdir }), 20_000);
    recorders.push(taken);
    expect((await taken.turn('Which codeword? (2)')).outcome).toEqual({ status: 'completed' });
    expect(misses(taken.events)).toEqual([]);
    expect(JSON.stringify(rig.server.requests.find((request) => request.userText.includes('(2)'))?.body)).toContain(
      'NEWWORD',
    );
    await taken.close();
  });
});
