// Real Codex (pinned), hermetic: two sessions on one app-server, the first one started on a warm
// process. Each gets its own reply, one is interrupted while the other completes, and the second
// thread's first model request holds only its own message (no history of the other session).
import { readdirSync, readFileSync } from 'node:fs';
import type { ReinsEvent } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';
import { liveProcessCount } from '../runtime/child-process.js';

/** Processes (anywhere) that Codex started for this thread: it puts CODEX_THREAD_ID in their environment (0.171.0). */
function processesOfThread(threadId: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`CODEX_THREAD_ID=${threadId}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const agentTexts = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
  );

describe('codex real: sessions sharing one app-server', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.harness.warm?.(0);
    await rig?.cleanup();
    rig = undefined;
    expect(liveProcessCount()).toBe(0);
  });

  it('two sessions on one process: own replies, no shared history, one interrupted while the other completes', async () => {
    rig = await codexRig('shared-process');
    const before = liveProcessCount();
    await rig.harness.warm?.(1);
    expect(liveProcessCount() - before).toBe(1);

    rig.server.when('ALPHA question', reply().text('The ALPHA answer, which never finishes').stall());
    rig.server.when('BETA question', reply().text('The BETA answer.'));
    // The first session takes the warm process (a replacement starts); the second joins it.
    const a = await rig.open();
    const b = await rig.open();
    await rig.harness.warm?.(0);
    expect(liveProcessCount() - before).toBe(1);
    expect(a.session.nativeSessionId).not.toBe(b.session.nativeSessionId);

    const first = await a.session.send('The ALPHA question.');
    await a.recorder.waitFor(
      (event) => event.type === 'item.delta' && event.kind === 'text' && event.turnId === first.turnId,
      'a text delta of the ALPHA answer',
    );
    const second = await b.session.send('The BETA question.');
    expect((await b.recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    expect(agentTexts(b.recorder.turnEvents(second.turnId))).toEqual(['The BETA answer.']);
    await a.session.interrupt();
    expect((await a.recorder.terminalOf(first)).outcome).toEqual({ status: 'cancelled' });

    // Isolation: the BETA thread's model request carries nothing of the ALPHA session.
    const betaRequest = rig.server.requests.find((request) => request.userText.includes('BETA question'));
    const body = JSON.stringify(betaRequest?.body);
    expect(body).toContain('The BETA question.');
    expect(body).not.toContain('ALPHA');
    const alphaRequest = rig.server.requests.find((request) => request.userText.includes('ALPHA question'));
    expect(JSON.stringify(alphaRequest?.body)).not.toContain('BETA');
    // Neither session saw the other's text.
    expect(JSON.stringify(a.recorder.events)).not.toContain('BETA');
    expect(JSON.stringify(b.recorder.events)).not.toContain('ALPHA');

    // Closing one leaves the other on the running process.
    await a.recorder.close();
    expect(liveProcessCount() - before).toBe(1);
    rig.server.when('GAMMA question', reply().text('The GAMMA answer.'));
    const third = await b.session.send('The GAMMA question.');
    expect((await b.recorder.terminalOf(third)).outcome).toEqual({ status: 'completed' });
    await b.recorder.close();
    expect(liveProcessCount() - before).toBe(0);
  });

  it('a closed session resumed while its process still serves another continues its own conversation there', async () => {
    rig = await codexRig('shared-process-resume');
    rig.server.when('Remember MANGO', reply().text('I will remember MANGO.'));
    rig.server.when('What was the word', reply().text('The word was MANGO.'));
    const a = await rig.open();
    const b = await rig.open();
    const one = await a.session.send('Remember MANGO.');
    expect((await a.recorder.terminalOf(one)).outcome).toEqual({ status: 'completed' });
    const nativeSessionId = a.session.nativeSessionId as string;
    await a.recorder.close();
    const again = await rig.open({ resume: { nativeSessionId } });
    // Still the one app-server: the thread was unsubscribed there, and is resumed there.
    expect(liveProcessCount()).toBe(1);
    expect(again.session.nativeSessionId).toBe(nativeSessionId);
    const two = await again.session.send('What was the word?');
    expect((await again.recorder.terminalOf(two)).outcome).toEqual({ status: 'completed' });
    const resumed = rig.server.requests.find((request) => request.userText.includes('What was the word'));
    expect(JSON.stringify(resumed?.body)).toContain('I will remember MANGO.');
    expect(JSON.stringify(b.recorder.events)).not.toContain('MANGO');
    await again.recorder.close();
    await b.recorder.close();
  });

  it('closing a session mid-command ends its command; the other session on the process runs on', async () => {
    rig = await codexRig('shared-process-command');
    rig.server.when('SLEEPER', reply().shell('sleep 37'));
    rig.server.when('AFTER question', reply().text('Still here.'));
    const a = await rig.open();
    const b = await rig.open();
    expect(liveProcessCount()).toBe(1);
    await a.session.send('SLEEPER: run the slow command.');
    await a.recorder.waitFor(
      (event) => event.type === 'item.started' && event.item.kind === 'tool_call',
      'the command',
    );
    const threadA = a.session.nativeSessionId as string;
    await expect.poll(() => processesOfThread(threadA).length, { timeout: 10_000 }).toBeGreaterThan(0);
    await a.recorder.close();
    // Codex itself leaves the command running (0.171.0); Reins ended the groups of A's thread only.
    expect(processesOfThread(threadA)).toEqual([]);
    expect(liveProcessCount()).toBe(1);
    const sent = await b.session.send('The AFTER question.');
    expect((await b.recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    expect(agentTexts(b.recorder.turnEvents(sent.turnId))).toEqual(['Still here.']);
    await b.recorder.close();
  });
});
