// Figure 6: what the daemon's store costs (issue 16). Two parts:
//
// (a) Events/s persisted: the daemon's own SessionLog (packages/daemon/dist/session-log.js) on the
//     SQLite store, fed as fast as it takes them: each session appends what arrives while its
//     previous write is in flight, and every write of one event-loop turn commits in one
//     transaction. 1 session and 100 sessions, synchronous=NORMAL (the default: durable across a
//     daemon crash) and FULL (also across an OS crash), against the same log on the in-memory
//     store (nothing written) as the ceiling. An event is a delta with a realistic native frame.
// (b) Added latency per event: a fake Codex app-server (bench/fakes/codex-emitter.mjs) streams
//     deltas, each stamped with the monotonic clock as it leaves the child, through the whole
//     daemon path (adapter -> daemon -> store -> WebSocket -> @reins/client RemoteSession in its
//     own process, bench/lib/store-client.mjs) at 1k and 10k frames/s; the delay is taken at that
//     client. The daemon with the SQLite store against the same daemon with the in-memory store:
//     the difference is what the store adds.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadline } from '../lib/rpc.mjs';
import { summarize } from '../lib/stats.mjs';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

export function deltaEvent(sessionId, seq) {
  const text = `token ${seq} of the answer `;
  return {
    type: 'item.delta',
    seq,
    harness: 'codex',
    sessionId,
    turnId: 'turn_1',
    at: Date.now(),
    itemId: 'msg_0123456789abcdef',
    kind: 'text',
    text,
    native: {
      source: 'codex.app-server',
      method: 'item/agentMessage/delta',
      frame: {
        method: 'item/agentMessage/delta',
        params: {
          threadId: '01a22b18-53ed-76d1-97a1-d4d77e83ab03',
          turnId: '01a22b18-542b-7190-b9f2-b92c9dee9941',
          itemId: 'msg_0123456789abcdef',
          delta: text,
        },
      },
    },
  };
}

/**
 * (a) One run: `total` events over `sessions` SessionLogs on `store`; events/s until all are published.
 * Also the cluster section's measure, over a JetStream store (`prefix` keeps its session ids apart).
 */
export async function persist({ SessionLog }, store, sessions, total, prefix = 'bench') {
  const logs = [];
  let published = 0;
  let done;
  const finished = new Promise((resolve) => {
    done = resolve;
  });
  for (let index = 0; index < sessions; index++) {
    const sessionId = `${prefix}-${index}`;
    await store.putSession({
      sessionId,
      harness: 'codex',
      cwd: '/bench',
      spec: { cwd: '/bench' },
      state: 'open',
      generation: 0,
      createdAt: 0,
      updatedAt: 0,
    });
    logs.push(
      new SessionLog(sessionId, 'codex', store, 1_000, 0, {
        published() {
          published++;
          if (published === total) done();
        },
        failed(error) {
          throw error;
        },
      }),
    );
  }
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let seq = 0; seq < total; seq++) {
    const log = logs[seq % sessions];
    log.append(deltaEvent(log.sessionId, log.nextSeq()));
    // Harness frames arrive in reads of a few dozen lines; the event loop turns in between.
    if (seq % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
  }
  await finished;
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    events: total,
    eventsPerSec: Math.round(total / seconds),
    cpuMicrosPerEvent: Number(((used.user + used.system) / total).toFixed(2)),
  };
}

async function throughput(deps, quick, log) {
  const { SqliteStore, MemoryStore } = deps;
  const total = quick ? 20_000 : 200_000;
  const out = {};
  for (const sessions of [1, 100]) {
    for (const mode of ['memory', 'normal', 'full']) {
      const dir = await mkdtemp(join(tmpdir(), 'reins-bench-store-'));
      const store =
        mode === 'memory' ? new MemoryStore() : await SqliteStore.open(join(dir, 'reins.db'), { synchronous: mode });
      try {
        // FULL fsyncs per commit: fewer events keep its run short.
        const events = mode === 'full' ? Math.min(total, quick ? 5_000 : 20_000) : total;
        const result = await persist(deps, store, sessions, events);
        out[`${mode}/${sessions}`] = { mode, sessions, ...result };
        log(
          `   ${mode === 'memory' ? 'in-memory (ceiling)' : `sqlite ${mode}`}, ${sessions} session(s): ${result.eventsPerSec} events/s, ${result.cpuMicrosPerEvent} µs CPU/event`,
        );
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  return out;
}

/** (b) Delays at a client process for one turn of `frames` deltas at `rate`, on a daemon with `store` ('sqlite' | 'memory'). */
async function clientDelays({ startDaemon, MemoryStore }, { benchDir, root }, store, frames, rate) {
  const home = await mkdtemp(join(tmpdir(), 'reins-bench-daemon-'));
  const daemon = await startDaemon({
    home,
    harnesses: ['codex'],
    logger: silent,
    ...(store === 'memory' ? { store: new MemoryStore() } : {}),
    harnessOptions: {
      codex: {
        binaryPath: join(benchDir, 'fakes/codex-emitter.mjs'),
        baseEnv: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          BENCH_CODEX_FIXTURE: join(root, 'packages/harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl'),
          BENCH_FRAMES: String(frames),
          BENCH_RATE: String(rate),
        },
      },
    },
  });
  try {
    return await clientDelaysAt(benchDir, daemon, home, frames, rate, 'the store bench client');
  } finally {
    await daemon.close();
    await rm(home, { recursive: true, force: true });
  }
}

async function latency(deps, context, quick, log) {
  const seconds = quick ? 1 : 3;
  const reps = quick ? 1 : 2;
  await clientDelays(deps, context, 'sqlite', 2_000, 10_000); // warm-up (JIT, page cache), unmeasured
  await clientDelays(deps, context, 'memory', 2_000, 10_000);
  const out = {};
  for (const rate of [1000, 10_000]) {
    const pooled = { memory: [], sqlite: [] };
    for (let rep = 0; rep < reps; rep++) {
      // Alternating, so both see the same machine load.
      for (const store of rep % 2 === 0 ? ['memory', 'sqlite'] : ['sqlite', 'memory']) {
        pooled[store].push(...(await clientDelays(deps, context, store, rate * seconds, rate)));
      }
    }
    const memory = summarize(pooled.memory, { p99: true, digits: 1 });
    const sqlite = summarize(pooled.sqlite, { p99: true, digits: 1 });
    const entry = {
      frames: rate * seconds * reps,
      withoutStoreMicros: memory,
      withStoreMicros: sqlite,
      addedP50Micros: Number((sqlite.p50 - memory.p50).toFixed(1)),
      addedP99Micros: Number((sqlite.p99 - memory.p99).toFixed(1)),
    };
    out[`${rate}/s`] = entry;
    log(
      `   ${rate}/s at the client: with the store p50 ${sqlite.p50} p99 ${sqlite.p99} µs | without p50 ${memory.p50} p99 ${memory.p99} µs | added p50 ${entry.addedP50Micros} p99 ${entry.addedP99Micros} µs (received ${sqlite.n}+${memory.n}/${2 * entry.frames})`,
    );
  }
  return out;
}

function report(result) {
  const rows = [];
  for (const entry of Object.values(result.persisted)) {
    rows.push(
      `  ${(entry.mode === 'memory' ? 'in-memory (ceiling)' : `sqlite ${entry.mode}`).padEnd(20)} ${String(entry.sessions).padStart(3)} session(s)  ${String(entry.eventsPerSec).padStart(9)} events/s  ${String(entry.cpuMicrosPerEvent).padStart(6)} µs CPU/event`,
    );
  }
  const latencyRows = Object.entries(result.latency).map(
    ([rate, entry]) =>
      `  ${rate.padEnd(8)} with store p50 ${entry.withStoreMicros.p50} p99 ${entry.withStoreMicros.p99} µs; without p50 ${entry.withoutStoreMicros.p50} p99 ${entry.withoutStoreMicros.p99} µs; added p50 ${entry.addedP50Micros} p99 ${entry.addedP99Micros} µs`,
  );
  return [
    '\n6. Daemon store (SQLite, WAL): events/s persisted through the session log, and added latency per event at a client',
    ...rows,
    ...latencyRows,
    '',
  ].join('\n');
}

export async function run({ quick, log, benchDir, root }) {
  const daemon = await import('@reins/daemon');
  const { SessionLog } = await import(join(root, 'packages/daemon/dist/session-log.js'));
  const deps = { ...daemon, SessionLog };
  log('   (a) events/s persisted');
  const persisted = await throughput(deps, quick, log);
  log('   (b) added latency per event, emitter -> daemon -> client');
  const added = await latency(deps, { benchDir, root }, quick, log);
  const result = { persisted, latency: added };
  return { ...result, report: report(result) };
}

/**
 * The measuring client in its own process (lib/store-client.mjs) against a running daemon: the delay of
 * each event at the client. Also the cluster section's, against a gateway.
 */
export async function clientDelaysAt(benchDir, daemon, home, frames, rate, what) {
  const child = spawn(process.execPath, [join(benchDir, 'lib/store-client.mjs'), daemon.url, daemon.token, home], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  const code = await deadline(
    new Promise((resolve) => child.on('exit', resolve)),
    60_000 + (frames / rate) * 2000,
    what,
  ).catch((error) => {
    child.kill('SIGKILL');
    throw error;
  });
  if (code !== 0) throw new Error(`${what} exited with ${code}`);
  const { outcome, delays } = JSON.parse(output);
  if (outcome !== 'completed') throw new Error(`emitter turn ${outcome}`);
  return delays;
}
