// Figure 7: what the cluster mode costs (issue 20), on a nats-server of its own (Debian's
// package; the section is skipped when it is not installed). Two parts:
//
// (a) Added latency per event: the bench's Codex emitter (bench/fakes/codex-emitter.mjs) streams
//     deltas stamped with the monotonic clock, at 1k and 10k frames/s, through a local daemon
//     (the default SQLite store) and through the cluster (a worker, which publishes each event to
//     JetStream, and a gateway, which gets it from its feed of the stream; one process, role all),
//     to a @reins/client in its own process (bench/lib/store-client.mjs). The delay is taken at
//     that client; the difference is what the gateway + JetStream path adds.
// (b) Events/s through JetStream: the daemon's own SessionLog on the worker's JetStream store, fed
//     as fast as it takes them, 1 session and 100 sessions. A session's events are written one
//     after the other (each expects the one before: docs/architecture/cluster.md), sessions in
//     parallel.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadline } from '../lib/rpc.mjs';
import { summarize } from '../lib/stats.mjs';
import { clientDelaysAt, persist as persistEvents } from './store.mjs';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function natsBinary() {
  for (const path of [process.env.REINS_NATS_SERVER, '/usr/sbin/nats-server', '/usr/bin/nats-server']) {
    if (!path) continue;
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // next
    }
  }
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startNats(binary) {
  const port = await freePort();
  const store = await mkdtemp(join(tmpdir(), 'reins-bench-nats-'));
  const child = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', store], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  await deadline(
    new Promise((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        output += chunk;
        if (output.includes('Server is ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`nats-server exited with ${code}: ${output}`)));
    }),
    10_000,
    'nats-server',
  );
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(store, { recursive: true, force: true });
    },
  };
}

function emitterOptions(benchDir, root, frames, rate) {
  return {
    codex: {
      binaryPath: join(benchDir, 'fakes/codex-emitter.mjs'),
      baseEnv: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        BENCH_CODEX_FIXTURE: join(root, 'packages/harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl'),
        BENCH_FRAMES: String(frames),
        BENCH_RATE: String(rate),
      },
    },
  };
}

/** (a) Delays at a client process for one turn of `frames` deltas at `rate`, through `path` ('local' | 'cluster'). */
async function clientDelays(daemonModule, context, nats, path, frames, rate) {
  const home = await mkdtemp(join(tmpdir(), 'reins-bench-cluster-'));
  const options = {
    home,
    harnesses: ['codex'],
    logger: silent,
    consoleDir: false,
    harnessOptions: emitterOptions(context.benchDir, context.root, frames, rate),
  };
  const node =
    path === 'cluster'
      ? await daemonModule.startCluster({ ...options, cluster: nats.url, role: 'all' })
      : { daemon: await daemonModule.startDaemon(options) };
  const daemon = node.daemon;
  try {
    return await clientDelaysAt(context.benchDir, daemon, home, frames, rate, 'the cluster bench client');
  } finally {
    await (node.close ? node.close() : daemon.close());
    await rm(home, { recursive: true, force: true });
  }
}

async function latency(daemonModule, context, nats, quick, log) {
  const seconds = quick ? 1 : 3;
  const reps = quick ? 1 : 2;
  await clientDelays(daemonModule, context, nats, 'cluster', 2_000, 10_000); // warm-up, unmeasured
  await clientDelays(daemonModule, context, nats, 'local', 2_000, 10_000);
  const out = {};
  for (const rate of [1_000, 10_000]) {
    const pooled = { local: [], cluster: [] };
    for (let rep = 0; rep < reps; rep++) {
      for (const path of rep % 2 === 0 ? ['local', 'cluster'] : ['cluster', 'local']) {
        pooled[path].push(...(await clientDelays(daemonModule, context, nats, path, rate * seconds, rate)));
      }
    }
    const local = summarize(pooled.local, { p99: true, digits: 1 });
    const cluster = summarize(pooled.cluster, { p99: true, digits: 1 });
    const entry = {
      frames: rate * seconds * reps,
      localMicros: local,
      clusterMicros: cluster,
      addedP50Micros: Number((cluster.p50 - local.p50).toFixed(1)),
      addedP99Micros: Number((cluster.p99 - local.p99).toFixed(1)),
    };
    out[`${rate}/s`] = entry;
    log(
      `   ${rate}/s at the client: cluster p50 ${cluster.p50} p99 ${cluster.p99} µs | local daemon p50 ${local.p50} p99 ${local.p99} µs | added p50 ${entry.addedP50Micros} p99 ${entry.addedP99Micros} µs (received ${cluster.n}+${local.n}/${2 * entry.frames})`,
    );
  }
  return out;
}

/** (b) `total` events over `sessions` SessionLogs on a worker's JetStream store: events/s until all are stored. */
async function persist(modules, nats, sessions, total) {
  const { openNats, EventStream, JetStreamStore } = modules;
  const cluster = await openNats([nats.url], { name: 'bench', log: silent });
  const stream = new EventStream(
    cluster,
    () => 'worker.bench.e1',
    silent,
    () => false,
  );
  const store = new JetStreamStore(cluster, stream, 'bench', () => 'e1', silent, { fenced() {} });
  try {
    return await persistEvents(modules, store, sessions, total, `bench-${Date.now().toString(36)}${sessions}`);
  } finally {
    await store.close();
    await cluster.close();
  }
}

async function throughput(modules, nats, quick, log) {
  const out = {};
  for (const sessions of [1, 100]) {
    const result = await persist(modules, nats, sessions, quick ? 5_000 : 20_000);
    out[`${sessions}`] = { sessions, ...result };
    log(
      `   JetStream, ${sessions} session(s): ${result.eventsPerSec} events/s, ${result.cpuMicrosPerEvent} µs CPU/event (this process)`,
    );
  }
  return out;
}

function report(result) {
  if (result.skipped) return `\n7. Cluster (NATS JetStream): skipped, ${result.skipped}\n`;
  const latencyRows = Object.entries(result.latency).map(
    ([rate, entry]) =>
      `  ${rate.padEnd(8)} cluster p50 ${entry.clusterMicros.p50} p99 ${entry.clusterMicros.p99} µs; local daemon p50 ${entry.localMicros.p50} p99 ${entry.localMicros.p99} µs; added p50 ${entry.addedP50Micros} p99 ${entry.addedP99Micros} µs`,
  );
  const rows = Object.values(result.persisted).map(
    (entry) =>
      `  JetStream ${String(entry.sessions).padStart(3)} session(s)  ${String(entry.eventsPerSec).padStart(9)} events/s  ${String(entry.cpuMicrosPerEvent).padStart(6)} µs CPU/event`,
  );
  return [
    '\n7. Cluster (NATS JetStream): added latency per event through a worker, JetStream and a gateway against a local daemon, at a client; events/s stored',
    ...latencyRows,
    ...rows,
    '',
  ].join('\n');
}

export async function run({ quick, log, benchDir, root }) {
  const binary = natsBinary();
  if (!binary) {
    const result = { skipped: 'nats-server is not installed (apt-get install nats-server)' };
    log(`   ${result.skipped}`);
    return { ...result, report: report(result) };
  }
  const daemonModule = await import('@reins/daemon');
  const dist = (path) => import(join(root, 'packages/daemon/dist', path));
  const modules = {
    ...(await dist('cluster/nats.js')),
    ...(await dist('cluster/event-stream.js')),
    ...(await dist('cluster/jetstream-store.js')),
    ...(await dist('session-log.js')),
  };
  const nats = await startNats(binary);
  try {
    log('   (a) added latency per event, emitter -> worker -> JetStream -> gateway -> client');
    const added = await latency(daemonModule, { benchDir, root }, nats, quick, log);
    log('   (b) events/s stored in JetStream through the session log');
    const persisted = await throughput(modules, nats, quick, log);
    const result = { latency: added, persisted };
    return { ...result, report: report(result) };
  } finally {
    await nats.stop();
  }
}
