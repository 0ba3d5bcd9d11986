#!/usr/bin/env node
// One of the clients of the daemon section's fan-out figure, in its own process: connects to the
// daemon (url and token in argv), attaches to every session named in BENCH_SESSIONS (JSON array),
// prints "ready" once every subscription is answered, and counts what arrives: every turn-scoped event
// (turnId set), the text deltas, and gaps in each session's seq (an event lost or out of order). With
// role "sender" it sends `turns` turns on every session, one after the other per session and the
// sessions in parallel, once "go" arrives on stdin. Ends when every session has completed `turns`
// turns and prints its counts, its CPU time from "ready" on, and the monotonic clock (ns) of its first
// and last counted event. BENCH_OMIT_NATIVE=1: it asks for events without native frames.
import { createInterface } from 'node:readline';
import { connect } from '@reins/client';
import { WebSocket } from 'ws';

const [url, token, role, turnsArg] = process.argv.slice(2);
const turns = Number(turnsArg);
const ids = JSON.parse(process.env.BENCH_SESSIONS ?? '[]');
const nativeFrames = process.env.BENCH_OMIT_NATIVE !== '1';
const client = await connect({ url, token, WebSocket, requestTimeoutMs: 300_000, nativeFrames });
const counts = {
  events: 0,
  deltas: 0,
  gaps: 0,
  failedTurns: 0,
  endedEarly: 0,
  sendErrors: 0,
  firstAt: undefined,
  lastAt: undefined,
};
let open = ids.length;
let finish;
const finished = new Promise((resolve) => {
  finish = resolve;
});

function follow(session) {
  let lastSeq = 0;
  let completed = 0;
  const waiters = [];
  const consumed = (async () => {
    for await (const event of session.events) {
      if (event.seq !== lastSeq + 1) counts.gaps++;
      lastSeq = event.seq;
      if (event.turnId === null) continue;
      const now = process.hrtime.bigint();
      counts.firstAt ??= now;
      counts.lastAt = now;
      counts.events++;
      if (event.type === 'item.delta' && event.kind === 'text') counts.deltas++;
      else if (event.type === 'turn.completed') {
        if (event.outcome.status !== 'completed') counts.failedTurns++;
        completed++;
        waiters.shift()?.();
        if (completed === turns && --open === 0) finish();
      }
    }
    // The stream ended before its turns did (the daemon dropped this connection, say): what is missing
    // counts as lost, and nothing waits for it any more.
    if (completed < turns) {
      counts.endedEarly++;
      for (const wake of waiters.splice(0)) wake();
      if (--open === 0) finish();
    }
  })();
  const turnEnd = () => new Promise((resolve) => waiters.push(resolve));
  return { session, consumed, turnEnd };
}

const followed = [];
for (const id of ids) followed.push(follow(await client.attach(id, { afterSeq: 0 })));
const cpuAtReady = process.cpuUsage();
process.stdout.write('ready\n');

if (role === 'sender') {
  await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
  await Promise.all(
    followed.map(async ({ session, turnEnd }) => {
      for (let turn = 0; turn < turns; turn++) {
        const ended = turnEnd();
        try {
          await session.send('go');
        } catch {
          counts.sendErrors++;
          return;
        }
        await ended;
      }
    }),
  );
}
await finished;
const cpu = process.cpuUsage(cpuAtReady);
client.close();
process.stdout.write(
  `${JSON.stringify({ ...counts, cpuMicros: cpu.user + cpu.system, firstAt: String(counts.firstAt), lastAt: String(counts.lastAt) })}\n`,
);
process.exit(0);
