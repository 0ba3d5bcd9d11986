// claude-agent-acp 0.23.1 (pinned in harness-clis) hosting two Reins sessions on one agent process
// (docs/architecture/contract.md, "Warm starts and shared processes"), against the scripted model
// server inside the loopback-only namespace: one pid, each session on its own cwd with its own
// replies, one interrupted while the other completes, and the second session's first model request
// holding nothing of the first's conversation; a session on a warm spare (warm(1)) with no history.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { assertHermetic, type ModelServer, reply, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig, agentText } from '../../../../test/support/acp-real.js';
import { liveProcessCount } from '../../../runtime/index.js';

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
  rig = await acpRig('claude-agent-acp', server, { scenario: 'shared-process', pin: 'previous' });
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

/** The pids of this process's children (the agent processes Reins started here). */
function children(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)]).toString();
  // Not the ps itself, a child as well.
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, command]) => Number(pid) > 0 && command !== 'ps')
    .map(([pid]) => Number(pid));
}

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

  it('warm(1): a session takes an initialised agent with no session, and its first model request holds only its own prompt', async () => {
    server.when('Remember the word heron.', reply().text('Heron remembered.'));
    const earlier = await rig.open();
    await earlier.recorder.terminalOf(await earlier.session.send('Remember the word heron.'));
    await earlier.recorder.close();
    expect(liveProcessCount()).toBe(0);

    const harness = rig.harness();
    await harness.warm(1);
    expect(liveProcessCount()).toBe(1);
    const spares = children();
    expect(spares).toHaveLength(1);
    server.when('What word, warm session?', reply().text('No word yet.'));
    const warm = await rig.open();
    // The session runs on the spare, not on a process of its own.
    expect(spares).toContain(warm.session.processId);
    const sent = await warm.session.send('What word, warm session?');
    expect((await warm.recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    expect(agentText(warm.recorder.turnEvents(sent.turnId))).toBe('No word yet.');
    const body = bodyOf('What word, warm session?') as string;
    expect(body).toBeDefined();
    expect(body).not.toContain('heron');
    // The taken spare was replaced: the session's process and a new spare.
    await harness.warm(1);
    expect(liveProcessCount()).toBe(2);
    await harness.warm(0);
    expect(liveProcessCount()).toBe(1);
    await warm.recorder.close();
  });
});
