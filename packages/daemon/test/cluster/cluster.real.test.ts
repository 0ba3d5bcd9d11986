// The cluster on one machine with every member a separate process, driving the real pinned Codex
// and Claude Code on the scripted model server, hermetically: a nats-server of the test's own, two
// workers (`reins daemon --cluster --role worker`, separate REINS_HOMEs, different labels) and two
// gateways. A client on gateway 1 creates a session on each worker and runs turns; a client on
// gateway 2 replays each from seq 1 identically. SIGKILL of a worker mid-turn ends that turn
// failed for both clients, the session is lost, and the next send resumes it on the other worker
// in the same conversation (the model server sees the earlier turn). A NATS restart mid-stream
// loses and doubles nothing. SIGKILL of gateway 1 moves its client to gateway 2 with no gap. The
// killed worker, started again, reaps the harness process it left.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, DaemonInfoSchema, type ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import {
  assertHermetic,
  harnessBinary,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  reply,
  startModelServer,
  type TempHome,
  until,
} from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningCli, startCli } from '../../../cli/test/cli.js';
import { openNats } from '../../src/cluster/nats.js';
import { EventReader } from '../helpers.js';
import { problems, WireWatcher } from '../wire-watcher.js';
import { type NatsServer, startNatsServer } from './nats-server.js';
import { silent, storedSeqs } from './rig.js';

let server: ModelServer | undefined;
let tempHome: TempHome | undefined;
let nats: NatsServer | undefined;
const members: RunningCli[] = [];
const clients: ReinsClient[] = [];
const watchers: WireWatcher[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const watcher of watchers.splice(0)) watcher.close();
  for (const member of members.splice(0)) {
    if (member.child.exitCode === null && member.child.signalCode === null) {
      member.child.kill('SIGTERM');
      await member.done;
    }
  }
  await nats?.dispose();
  await server?.close();
  await tempHome?.cleanup();
  nats = undefined;
  server = undefined;
  tempHome = undefined;
});

const turnEnd = (turnId: string) => (event: ReinsEvent) => event.type === 'turn.completed' && event.turnId === turnId;
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

/** One environment for both harnesses (same hermetic home, PATHs joined). */
function workerEnvironment(...envs: Record<string, string>[]): Record<string, string> {
  const merged: Record<string, string> = Object.assign({}, ...envs);
  merged.PATH = [...new Set(envs.flatMap((env) => (env.PATH ?? '').split(':')).filter(Boolean))].join(':');
  return merged;
}

describe('cluster real: Codex and Claude Code across workers and gateways', () => {
  it('replays from any gateway, survives a worker killed mid-turn, a NATS restart and a gateway killed', async () => {
    await assertHermetic();
    server = await startModelServer({ strict: false });
    tempHome = await makeTempHome('reins-cluster-real-');
    const codex = harnessBinary('codex');
    const claude = harnessBinary('claude-code');
    const env = workerEnvironment(
      (await harnessLaunch('codex', { modelServerUrl: server.url, tempHome, binary: codex })).env,
      (await harnessLaunch('claude-code', { modelServerUrl: server.url, tempHome, binary: claude })).env,
    );
    const workdir = join(tempHome.dir, 'work');
    const home = (name: string) => join(tempHome?.dir ?? '', `reins-${name}`);
    await mkdir(workdir, { recursive: true });
    nats = await startNatsServer();
    const natsUrl = nats.url;

    const start = async (name: string, args: string[]) => {
      const member = startCli(['daemon', '--cluster', natsUrl, '--heartbeat-ttl', '4s', ...args], {
        env: { ...env, REINS_HOME: home(name), REINS_CODEX_BIN: codex.command, REINS_CLAUDE_CODE_BIN: claude.command },
      });
      members.push(member);
      await member.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
      return member;
    };
    const gatewayClient = async (name: string) => {
      const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home(name), 'daemon.json'), 'utf8')));
      const client = await connect({ url: info.url, token: info.token, WebSocket, requestTimeoutMs: 90_000 });
      clients.push(client);
      return { client, info };
    };
    const workerId = (member: RunningCli) => /Reins worker (\S+) joined/.exec(member.stdout())?.[1];

    const workerA = await start('a', ['--role', 'worker', '--labels', 'pool=x,host=a']);
    const gateway1 = await start('g1', ['--role', 'gateway']);
    await start('g2', ['--role', 'gateway']);
    const one = (await gatewayClient('g1')).client;
    const { client: two, info: g2 } = await gatewayClient('g2');

    // A Codex session on worker a (the only one yet), then worker b joins and takes a Claude session.
    server.when('Remember the word pelican', reply().text('I will remember the word pelican.'));
    const codexSession = await one.createSession('codex', { cwd: workdir }, undefined, { labels: { pool: 'x' } });
    const codexEvents = new EventReader(codexSession.events);
    const first = await codexSession.send('Remember the word pelican.');
    await codexEvents.waitFor(turnEnd(first.turnId), 'the first Codex turn', 90_000);
    const workerB = await start('b', ['--role', 'worker', '--labels', 'pool=x,host=b']);
    server.when('Remember the word heron', reply().text('I will remember the word heron.'));
    // Gateway 1 learns of worker b from the members bucket's watch, a moment after b says it joined
    // (once, in a loaded run, it placed before that and found no worker with the labels).
    const claudeSession = await until(
      () =>
        one.createSession('claude-code', { cwd: workdir }, undefined, { labels: { host: 'b' } }).catch((error) => {
          if (String((error as Error).message).includes('no worker has the labels host=b')) return undefined;
          throw error;
        }),
      'gateway 1 to know worker b',
      20_000,
    );
    const claudeEvents = new EventReader(claudeSession.events);
    const heron = await claudeSession.send('Remember the word heron.');
    await claudeEvents.waitFor(turnEnd(heron.turnId), 'the first Claude Code turn', 90_000);
    const listed = await one.listSessions();
    expect(listed.find((entry) => entry.sessionId === codexSession.id)?.worker).toBe(workerId(workerA));
    expect(listed.find((entry) => entry.sessionId === claudeSession.id)?.worker).toBe(workerId(workerB));

    // Gateway 2 replays each session from seq 1, identical.
    const replays = new Map<string, EventReader>();
    for (const [session, events] of [
      [codexSession, codexEvents],
      [claudeSession, claudeEvents],
    ] as const) {
      const replay = new EventReader((await two.attach(session.id, { afterSeq: 0 })).events);
      const seen = events.events.length;
      await replay.waitFor((event) => event.seq === seen, 'the replay at gateway 2');
      // Identical as far as the first client had it then (both follow the live log from here).
      expect(replay.events.slice(0, seen)).toEqual(events.events.slice(0, seen));
      replays.set(session.id, replay);
    }

    // Worker a is killed mid-turn: the turn fails for both clients, the session is lost.
    server.when('Count to a thousand', reply().text('One, two').stall());
    const stalled = await codexSession.send('Count to a thousand, slowly.');
    const codexReplay = replays.get(codexSession.id) as EventReader;
    await codexReplay.waitFor(
      (event) => event.type === 'item.delta' && event.turnId === stalled.turnId,
      'the stalled turn streaming',
    );
    workerA.child.kill('SIGKILL');
    for (const events of [codexEvents, codexReplay]) {
      const ended = await events.waitFor(turnEnd(stalled.turnId), 'the killed turn to end', 15_000);
      expect(ended).toMatchObject({ outcome: { status: 'failed', error: { code: 'process_exited' } } });
    }
    await until(
      async () => (await two.listSessions()).find((e) => e.sessionId === codexSession.id)?.status === 'lost',
      'lost',
      20_000,
    );

    // The next send resumes the same Codex conversation on worker b.
    server.when('Which word did I ask you to remember', reply().text('The word was pelican.'));
    const asked = await codexSession.send('Which word did I ask you to remember?');
    await codexEvents.waitFor(turnEnd(asked.turnId), 'the resumed Codex turn', 90_000);
    expect(codexEvents.events.find(turnEnd(asked.turnId))).toMatchObject({ outcome: { status: 'completed' } });
    expect((await two.listSessions()).find((e) => e.sessionId === codexSession.id)).toMatchObject({
      worker: workerId(workerB),
      nativeSessionId: codexSession.nativeSessionId,
    });
    const resumedBody = JSON.stringify(server.requests.filter((request) => request.scripted).at(-1)?.body);
    expect(resumedBody).toContain('Remember the word pelican.');
    expect(resumedBody).toContain('I will remember the word pelican.');
    expect(resumedBody).toContain('Which word did I ask you to remember?');

    // NATS restarts while Claude Code streams a slow answer: nothing lost or doubled.
    const wire = await WireWatcher.open(g2);
    watchers.push(wire);
    await wire.subscribe(claudeSession.id, 0);
    const slow = reply().delayMs(150);
    for (let chunk = 0; chunk < 40; chunk++) slow.text(`Heron fact ${chunk}. `);
    server.when('Tell me about herons', slow);
    const facts = await claudeSession.send('Tell me about herons.');
    await claudeEvents.waitFor(
      (event) => event.type === 'item.delta' && event.turnId === facts.turnId,
      'the slow answer',
    );
    await nats.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await nats.start();
    // (The answer takes about 6 s, so NATS was away in the middle of it.)
    expect(claudeEvents.events.some(turnEnd(facts.turnId))).toBe(false);
    await claudeEvents.waitFor(turnEnd(facts.turnId), 'the slow answer to end', 90_000);
    expect(claudeEvents.events.find(turnEnd(facts.turnId))).toMatchObject({ outcome: { status: 'completed' } });
    const claudeLast = claudeEvents.events.at(-1)?.seq ?? 0;
    await until(() => wire.last(claudeSession.id) >= claudeLast, 'gateway 2 to have every event', 20_000);
    expect(problems(wire.seqs.get(claudeSession.id) ?? [], claudeLast)).toEqual({
      lost: 0,
      duplicated: 0,
      outOfOrder: 0,
    });
    const stored = await storedSeqs(natsUrl, claudeSession.id);
    expect(stored).toEqual(stored.map((_, index) => index + 1));
    expect(stored.length).toBeGreaterThanOrEqual(claudeLast);
    const check = await openNats([natsUrl], { name: 'check', log: silent });

    // The client of gateway 2 followed the Codex session live through all of it: the same log.
    const codexLast = (await two.listSessions()).find((e) => e.sessionId === codexSession.id)?.lastSeq ?? 0;
    await codexEvents.waitFor((event) => event.seq === codexLast, 'the whole Codex log at gateway 1');
    await codexReplay.waitFor((event) => event.seq === codexLast, 'the whole Codex log at gateway 2');
    expect(codexReplay.events).toEqual(codexEvents.events);

    // Gateway 1 is killed: its client goes on through gateway 2 from the seq it had.
    gateway1.child.kill('SIGKILL');
    await claudeEvents.ended(15_000);
    const moved = (await gatewayClient('g2')).client;
    const again = await moved.attach(claudeSession.id, { afterSeq: claudeEvents.events.at(-1)?.seq ?? 0 });
    const after = new EventReader(again.events);
    server.when('Which bird', reply().text('A heron.'));
    const bird = await again.send('Which bird did I name?');
    await after.waitFor(turnEnd(bird.turnId), 'a turn through gateway 2', 90_000);
    const seqs = [...claudeEvents.events, ...after.events].map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));

    // Worker a starts again on its home and reaps the Codex process group its killed run left.
    const groupsOf = async (id: string | undefined) => {
      const pgids: number[] = [];
      for await (const key of await check.processes.keys(`${id}.>`)) {
        const entry = await check.processes.get(key);
        if (entry?.operation === 'PUT') pgids.push((entry.json() as { pgid: number }).pgid);
      }
      return pgids;
    };
    const left = await groupsOf(workerId(workerA));
    expect(left.length).toBeGreaterThan(0);
    await start('a', ['--role', 'worker', '--labels', 'pool=x,host=a']);
    await until(
      async () => (await groupsOf(workerId(workerA))).length === 0,
      'the reaped groups to be settled',
      15_000,
    );
    expect(left.filter(isAlive)).toEqual([]);
    await check.close();
  }, 420_000);
});
