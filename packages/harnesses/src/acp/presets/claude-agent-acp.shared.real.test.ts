// claude-agent-acp 0.23.1 (pinned in harness-clis) hosting two Reins sessions on one agent process
// (docs/architecture/contract.md, "Warm starts and shared processes"), against the scripted model
// server inside the loopback-only namespace: one pid, each session on its own cwd with its own
// replies, one interrupted while the other completes, and the second session's first model request
// holding nothing of the first's conversation.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { assertHermetic, type ModelServer, reply, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig, agentText } from '../../../test/support/acp-real.js';
import { liveProcessCount } from '../../runtime/index.js';

let server: ModelServer;
let rig: AcpRig;

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(async () => {
  server.reset();
  rig = await acpRig('claude-agent-acp', server, { scenario: 'shared-process' });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

const bodyOf = (text: string) =>
  server.requests
    .filter((request) => request.scripted)
    .map((request) => JSON.stringify(request.body))
    .find((body) => body.includes(text));

describe('claude-agent-acp 0.23.1 sharing one process', () => {
  it('two sessions on one pid: own cwd, own replies, one cancelled while the other completes, no history crossing', async () => {
    const otherCwd = join(rig.temp.dir, 'other');
    mkdirSync(otherCwd);
    server.when('Start something long for A.', reply().text('partial answer for A').stall());
    server.when('Question for B.', reply().text('Answer for B.'));
    server.when('And now A again.', reply().text('A after the cancel.'));

    // Two Harness objects (as the daemon makes one per session) with the same launch settings.
    const a = await rig.open();
    const b = await rig.open({ cwd: otherCwd });
    expect(liveProcessCount()).toBe(1);
    expect(a.session.processId).toBeDefined();
    expect(b.session.processId).toBe(a.session.processId);
    expect(b.session.nativeSessionId).not.toBe(a.session.nativeSessionId);

    const long = await a.session.send('Start something long for A.');
    await a.recorder.waitFor((event) => event.type === 'item.delta' && event.kind === 'text', 'a text delta of A');
    const question = await b.session.send('Question for B.');
    const answered = await b.recorder.terminalOf(question);
    expect(answered.outcome).toEqual({ status: 'completed' });
    expect(agentText(b.recorder.turnEvents(question.turnId))).toBe('Answer for B.');
    await a.session.interrupt();
    expect((await a.recorder.terminalOf(long)).outcome).toEqual({ status: 'cancelled' });

    // B's first model request holds its own prompt and cwd, nothing of A's.
    const bBody = bodyOf('Question for B.') as string;
    expect(bBody).toBeDefined();
    expect(bBody).not.toContain('Start something long for A.');
    expect(bBody).not.toContain('partial answer for A');
    expect(bBody).toContain(otherCwd);
    expect(bBody).not.toContain(rig.workspace);
    const aBody = bodyOf('Start something long for A.') as string;
    expect(aBody).toContain(rig.workspace);

    // A goes on after its cancel (0.23.1's reopen: session/close + session/resume of A alone).
    const sentAgain = await a.session.send('And now A again.');
    expect((await a.recorder.terminalOf(sentAgain)).outcome).toEqual({ status: 'completed' });
    expect(agentText(a.recorder.turnEvents(sentAgain.turnId))).toBe('A after the cancel.');
    expect(agentText(a.recorder.events)).not.toContain('Answer for B.');
    expect(agentText(b.recorder.events)).not.toContain('A after the cancel.');
    expect(b.session.processId).toBe(a.session.processId);

    // Closing A leaves B's process running; B still answers.
    await a.recorder.close();
    expect(liveProcessCount()).toBe(1);
    server.when('B once more.', reply().text('B is still here.'));
    const more = await b.session.send('B once more.');
    await b.recorder.terminalOf(more);
    expect(agentText(b.recorder.turnEvents(more.turnId))).toBe('B is still here.');
    await b.recorder.close();
    expect(liveProcessCount()).toBe(0);
  });
});
