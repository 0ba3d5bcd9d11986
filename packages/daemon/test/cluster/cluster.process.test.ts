// The cluster's mechanics on the testkit's fake Codex (recorded 0.169.0 frames), with a
// nats-server of the test's own and cluster nodes in this process: placement by labels, any
// gateway replays any session identically, session/list names the worker, a worker that leaves
// leaves its sessions lost and the next send resumes them on the other worker.
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { afterEach, describe, expect, it } from 'vitest';
import { EventReader, fakeCodexOptions } from '../helpers.js';
import { ClusterRig, until } from './rig.js';

let rig: ClusterRig | undefined;
afterEach(async () => {
  await rig?.dispose();
  rig = undefined;
  expect(liveProcessCount()).toBe(0);
});

const codex = { codex: fakeCodexOptions('text-turn') };
const turnEnd = (turnId: string) => (event: ReinsEvent) => event.type === 'turn.completed' && event.turnId === turnId;

describe('cluster on fake harnesses', () => {
  it('places by labels, replays from any gateway, and resumes a lost session on the other worker', async () => {
    rig = await ClusterRig.start();
    const a = await rig.node({ role: 'worker', labels: { host: 'a' }, harnesses: ['codex'], harnessOptions: codex });
    const b = await rig.node({ role: 'worker', labels: { host: 'b' }, harnesses: ['codex'], harnessOptions: codex });
    const gatewayA = await rig.node({ role: 'gateway' });
    const gatewayB = await rig.node({ role: 'gateway' });
    const cwd = await rig.folder('work');

    const first = await rig.client(gatewayA);
    const onA = await first.createSession('codex', { cwd }, undefined, { labels: { host: 'a' } });
    const reader = new EventReader(onA.events);
    const sent = await onA.send('Say hello');
    await reader.waitFor(turnEnd(sent.turnId), 'the turn on worker a');
    const listed = await first.listSessions();
    expect(listed).toEqual([
      expect.objectContaining({ sessionId: onA.id, worker: a.worker?.id, labels: { host: 'a' } }),
    ]);

    await expect(
      first.createSession('codex', { cwd }, undefined, { labels: { host: 'nowhere' } }),
    ).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringContaining('host=nowhere') });

    // Gateway B replays the whole log, identical.
    const second = await rig.client(gatewayB);
    const lastSeq = (await second.listSessions())[0]?.lastSeq ?? 0;
    expect(lastSeq).toBe(reader.events.at(-1)?.seq);
    const replay = new EventReader((await second.attach(onA.id, { afterSeq: 0 })).events);
    await replay.waitFor((event) => event.seq === lastSeq, 'the replay');
    expect(replay.events).toEqual(reader.events);

    // Worker a leaves: its session is lost, and the next send resumes it on b (labels allowing).
    await first.createSession('codex', { cwd }, undefined, { labels: { host: 'b' } });
    await a.close();
    await until(
      async () => (await second.listSessions()).find((entry) => entry.sessionId === onA.id)?.status === 'lost',
      'the session to be lost',
    );
    await expect(onA.send('Again')).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('host=a'),
    });
    expect(b.worker).toBeDefined();
  });
});
