// Figure 8: what the daemon costs (issue 21, item 5). Three parts:
//
// (a) Added latency per event over the daemon's WebSocket: the bench's Codex emitter
//     (bench/fakes/codex-emitter.mjs) streams deltas stamped with the monotonic clock at 1k and 10k
//     frames/s, (1) in-process, to a consumer of `session.events` (figure 4's Reins path, reused), and
//     (2) through a daemon as users run it (SQLite store, in this process) to a @reins/client in its
//     own process (bench/lib/store-client.mjs, the store section's runner), alternating. The split of
//     the daemon path: the daemon's frame tap notes when its adapter split each line, so a delay is
//     "until the daemon had the line" (pipe, the same as in-process) + "daemon -> client" (log, store
//     commit, WebSocket, the client's parse and RemoteSession).
// (b) Events/s delivered: 100 sessions on one daemon (in its own process, bench/lib/daemon-host.mjs),
//     each on a small awk fake (bench/fakes/codex-burst.sh) that writes a turn of text deltas as fast
//     as the pipe takes them; 10 client processes (bench/lib/fanout-client.mjs), EVERY client attached
//     to EVERY session (1 000 subscriptions: each event goes out 10 times). One client sends the turns,
//     one at a time per session, the sessions in parallel. Counted: turn-scoped events at the clients
//     from the first send to the last client's last event; no loss = every delta at every client and no
//     gap in any session's seq.
// (c) RSS of the daemon process (children excluded, after GC) per hosted session (a live idle harness
//     process) and per dormant one (evicted: a 1 s idle TTL puts each to sleep after its creation),
//     100 sessions of each in a fresh daemon process, against its RSS after a first round of 100 of
//     the same (warm: V8's young generation then has the size this churn gives it, a fixed cost that
//     was most of the old figure); and per dormant session after a restart (a fresh daemon on a store of 100 sessions
//     more than another fresh daemon's store: what a dormant session's record holds).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { burstFakeEnv } from '../lib/codex-frames.mjs';
import { connectTo, startDaemonHost } from '../lib/daemon-process.mjs';
import { deadline } from '../lib/rpc.mjs';
import { socketFloor } from '../lib/socket-floor.mjs';
import { summarize } from '../lib/stats.mjs';
import { emitterEnv, reinsDelays } from './latency.mjs';
import { clientDelaysAt, deltaEvent } from './store.mjs';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const stampOf = (text) => BigInt(text.slice(text.indexOf('@') + 1));

// ---- (a) latency ---------------------------------------------------------------------------------

/** Delays at a client process for one turn of `frames` deltas at `rate` through a daemon; and the split. */
export async function daemonDelays({ startDaemon }, { benchDir, root }, frames, rate) {
  const home = await mkdtemp(join(tmpdir(), 'reins-bench-daemon-'));
  // Line split by the daemon's adapter, per delta number: how long the line took to get there.
  const atDaemon = new Map();
  // CPU time of this process (the daemon's) from its first delta line to the client's end, per frame.
  let cpuAtFirst;
  const tap = (direction, line) => {
    if (direction !== 'out') return;
    const at = line.indexOf('"delta":"');
    if (at === -1) return;
    const text = line.slice(at + 9, line.indexOf('"', at + 9));
    cpuAtFirst ??= process.cpuUsage();
    atDaemon.set(Number(text.slice(0, text.indexOf('@'))), Number(process.hrtime.bigint() - stampOf(text)) / 1000);
  };
  const daemon = await startDaemon({
    home,
    harnesses: ['codex'],
    logger: silent,
    consoleDir: false,
    harnessOptions: {
      codex: { binaryPath: join(benchDir, 'fakes/codex-emitter.mjs'), baseEnv: emitterEnv(root, frames, rate), tap },
    },
  });
  try {
    const delays = await clientDelaysAt(benchDir, daemon, home, frames, rate, 'the daemon bench client');
    const used = process.cpuUsage(cpuAtFirst);
    // The client's delays come in seq order, one per delta: delay i is delta i + 1 (only when none was lost).
    const pipe = [];
    const beyond = [];
    if (delays.length === frames) {
      for (const [index, delay] of delays.entries()) {
        const toDaemon = atDaemon.get(index + 1);
        if (toDaemon === undefined) continue;
        pipe.push(toDaemon);
        beyond.push(delay - toDaemon);
      }
    }
    return { delays, pipe, beyond, cpuMicros: used.user + used.system };
  } finally {
    await daemon.close();
    await rm(home, { recursive: true, force: true });
  }
}

async function latency(context, quick, log) {
  const { createHarness } = await import('@reins/harnesses');
  const daemonModule = await import('@reins/daemon');
  const seconds = quick ? 1 : 3;
  const reps = quick ? 1 : 2;
  const deps = { ...context, createHarness };
  // Warm-up (JIT, page cache) of both paths, unmeasured.
  await reinsDelays(deps, [{ frames: 2_000, rate: 10_000, keep: false }]);
  await daemonDelays(daemonModule, context, 2_000, 10_000);
  const out = {};
  for (const rate of [1_000, 10_000]) {
    const frames = rate * seconds;
    const pooled = { inProcess: [], inside: [], daemon: [], pipe: [], beyond: [], inProcessCpu: 0, daemonCpu: 0 };
    for (let rep = 0; rep < reps; rep++) {
      // Alternating, so both see the same machine load.
      for (const path of rep % 2 === 0 ? ['inProcess', 'daemon'] : ['daemon', 'inProcess']) {
        if (path === 'inProcess') {
          const [result] = await reinsDelays(deps, [{ frames, rate, keep: true }]);
          pooled.inProcess.push(...result.delays);
          pooled.inside.push(...result.inside);
          pooled.inProcessCpu += result.cpuMicros;
        } else {
          const result = await daemonDelays(daemonModule, context, frames, rate);
          pooled.daemon.push(...result.delays);
          pooled.pipe.push(...result.pipe);
          pooled.beyond.push(...result.beyond);
          pooled.daemonCpu += result.cpuMicros;
        }
      }
    }
    const stats = (samples) => summarize(samples, { p99: true, digits: 1 });
    const inProcess = stats(pooled.inProcess);
    const daemon = stats(pooled.daemon);
    const entry = {
      frames: frames * reps,
      inProcessMicros: inProcess,
      daemonMicros: daemon,
      // In-process: line split -> consumer (Reins' own share). Daemon: the pipe to the daemon's line
      // split, then everything from there to the client's consumer.
      split: {
        inProcessInsideMicros: stats(pooled.inside),
        toDaemonMicros: stats(pooled.pipe),
        daemonToClientMicros: stats(pooled.beyond),
      },
      // CPU time per frame of this process: Reins in-process, or the daemon (the client is another process).
      inProcessCpuMicrosPerFrame: Number((pooled.inProcessCpu / (frames * reps)).toFixed(2)),
      daemonCpuMicrosPerFrame: Number((pooled.daemonCpu / (frames * reps)).toFixed(2)),
      addedP50Micros: Number((daemon.p50 - inProcess.p50).toFixed(1)),
      addedP99Micros: Number((daemon.p99 - inProcess.p99).toFixed(1)),
    };
    out[`${rate}/s`] = entry;
    log(
      `   ${rate}/s: over the WebSocket p50 ${daemon.p50} p99 ${daemon.p99} µs | in-process p50 ${inProcess.p50} p99 ${inProcess.p99} µs | added p50 ${entry.addedP50Micros} p99 ${entry.addedP99Micros} µs (received ${daemon.n}+${inProcess.n}/${2 * entry.frames}); split: to the daemon p99 ${entry.split.toDaemonMicros.p99}, daemon -> client p50 ${entry.split.daemonToClientMicros.p50} p99 ${entry.split.daemonToClientMicros.p99} µs; CPU µs/frame daemon ${entry.daemonCpuMicrosPerFrame} in-process ${entry.inProcessCpuMicrosPerFrame}`,
    );
  }
  return out;
}

// ---- the daemon in a process of its own (b, c) ----------------------------------------------------

/** Opens `count` codex sessions on the host from one connection, which is closed after; their ids. */
async function openSessions(host, cwd, count) {
  const client = await connectTo(host);
  try {
    const ids = [];
    for (let index = 0; index < count; index++) ids.push((await client.createSession('codex', { cwd })).id);
    return ids;
  } finally {
    client.close();
  }
}

function hostOptions({ benchDir, root }, home, deltasPerTurn, maxLiveSessions) {
  return {
    home,
    harnesses: ['codex'],
    idleTtlMs: 0,
    maxLiveSessions,
    harnessOptions: {
      codex: { binaryPath: join(benchDir, 'fakes/codex-burst.sh'), baseEnv: burstFakeEnv(root, deltasPerTurn) },
    },
  };
}

// ---- (b) fan-out ----------------------------------------------------------------------------------

export async function fanOut({ benchDir, root }, quick, log, { omitNative = false } = {}) {
  const sessions = 100;
  const clients = 10;
  const turns = quick ? 2 : 3;
  const deltas = quick ? 100 : 200;
  const home = await mkdtemp(join(tmpdir(), 'reins-bench-fanout-'));
  const host = await startDaemonHost(benchDir, hostOptions({ benchDir, root }, home, deltas, 1_000_000));
  const children = [];
  try {
    const ids = await openSessions(host, home, sessions);
    for (let index = 0; index < clients; index++) {
      const child = spawn(
        process.execPath,
        [
          // BENCH_CLIENT_NODE_ARGS (space-separated): Node flags for the clients, e.g. --cpu-prof.
          ...(process.env.BENCH_CLIENT_NODE_ARGS ?? '').split(' ').filter(Boolean),
          join(benchDir, 'lib/fanout-client.mjs'),
          host.url,
          host.token,
          index === 0 ? 'sender' : 'watcher',
          String(turns),
        ],
        {
          env: { ...process.env, BENCH_SESSIONS: JSON.stringify(ids), BENCH_OMIT_NATIVE: omitNative ? '1' : '0' },
          stdio: ['pipe', 'pipe', 'inherit'],
        },
      );
      const lines = createInterface({ input: child.stdout });
      const output = [];
      const ready = new Promise((resolve) => lines.once('line', resolve));
      lines.on('line', (line) => output.push(line));
      const exited = new Promise((resolve) => child.on('exit', resolve));
      children.push({ child, ready, exited, output });
    }
    await deadline(Promise.all(children.map((c) => c.ready)), 120_000, 'fan-out clients attached');
    const before = await host.measure();
    const goAt = process.hrtime.bigint();
    children[0].child.stdin.write('go\n');
    const expectedSeconds = (sessions * turns * deltas * clients) / 20_000;
    const codes = await deadline(
      Promise.all(children.map((c) => c.exited)),
      120_000 + expectedSeconds * 1000,
      'fan-out turns',
    );
    const results = children.map(({ output }, index) => {
      if (codes[index] !== 0) throw new Error(`fan-out client ${index} exited with ${codes[index]}`);
      return JSON.parse(output.at(-1));
    });
    const after = await host.measure();
    const lastAt = results.reduce(
      (latest, result) => (BigInt(result.lastAt) > latest ? BigInt(result.lastAt) : latest),
      0n,
    );
    const seconds = Number(lastAt - goAt) / 1e9;
    const delivered = results.reduce((sum, result) => sum + result.events, 0);
    const expectedDeltas = sessions * turns * deltas;
    const lost = results.reduce((sum, result) => sum + Math.max(0, expectedDeltas - result.deltas), 0);
    const gaps = results.reduce((sum, result) => sum + result.gaps, 0);
    const failedTurns = results.reduce((sum, result) => sum + result.failedTurns, 0);
    // From the end of the first measure to the start of the second: no collection of the bench's own.
    const daemonCpuMicros = after.cpuMicrosWhenAsked - before.cpuMicros;
    const out = {
      omitNative,
      sessions,
      clients,
      subscriptions: sessions * clients,
      turnsPerSession: turns,
      deltasPerTurn: deltas,
      seconds: Number(seconds.toFixed(3)),
      delivered,
      eventsPerSecDelivered: Math.round(delivered / seconds),
      eventsPerSecIngested: Math.round(delivered / clients / seconds),
      // The daemon process's CPU time per event it took from a harness (each delivered to 10 clients).
      daemonCpuMicrosPerEventIn: Number((daemonCpuMicros / (delivered / clients)).toFixed(1)),
      daemonCpuSeconds: Number((daemonCpuMicros / 1e6).toFixed(2)),
      // Each client process's CPU time per event it received (parse, checks, RemoteSession, counting).
      clientCpuMicrosPerEvent: Number(
        (results.reduce((sum, result) => sum + result.cpuMicros, 0) / delivered).toFixed(1),
      ),
      clientsCpuSeconds: Number((results.reduce((sum, result) => sum + result.cpuMicros, 0) / 1e6).toFixed(2)),
      lostDeltas: lost,
      seqGaps: gaps,
      failedTurns,
      streamsEndedEarly: results.reduce((sum, result) => sum + result.endedEarly, 0),
      sendErrors: results.reduce((sum, result) => sum + result.sendErrors, 0),
    };
    // The floor under daemonCpuMicrosPerEventIn: the frames' loopback writes alone (bench/lib/socket-floor.mjs).
    const eventOf = (seq) => {
      const { native, ...bare } = deltaEvent(ids[0], seq);
      return omitNative ? bare : { ...bare, native };
    };
    const frameOf = (seq) =>
      `{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"${ids[0]}","event":${JSON.stringify(eventOf(seq))}}}`;
    out.socketFloorCpuMicrosPerEventIn = {};
    for (const perTick of [1, 16]) {
      out.socketFloorCpuMicrosPerEventIn[`${perTick}/tick`] = await socketFloor({
        events: Math.round(delivered / clients),
        clients,
        perTick,
        frameOf,
      });
    }
    const floor = out.socketFloorCpuMicrosPerEventIn;
    log(
      `   ${clients} clients x ${sessions} sessions (every client on every session${omitNative ? ', events without native frames' : ''}): ${out.eventsPerSecDelivered} events/s delivered (${out.eventsPerSecIngested}/s from the harnesses), ${delivered} events in ${out.seconds} s, daemon CPU ${out.daemonCpuSeconds} s (${out.daemonCpuMicrosPerEventIn} µs per event in), clients' CPU ${out.clientsCpuSeconds} s (${out.clientCpuMicrosPerEvent} µs per event received); lost deltas ${lost}, seq gaps ${gaps}, failed turns ${failedTurns}; floor: the frames' writes alone ${floor['1/tick']} µs per event in at 1 event per tick, ${floor['16/tick']} at 16`,
    );
    return out;
  } finally {
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
    await host.close();
    await rm(home, { recursive: true, force: true });
  }
}

// ---- (c) memory -----------------------------------------------------------------------------------

async function memoryPer({ benchDir, root }, kind, count) {
  const home = await mkdtemp(join(tmpdir(), 'reins-bench-daemon-rss-'));
  const options = hostOptions({ benchDir, root }, home, 1, 1_000_000);
  // Dormant: the daemon's own idle eviction puts each session to sleep 1 s after its last use. (A cap of
  // 0 live sessions would too, but it ends and respawns the shared app-server once per session, and that
  // churn, not the dormant sessions, would then be most of the RSS.)
  const host = await startDaemonHost(benchDir, kind === 'dormant' ? { ...options, idleTtlMs: 1_000 } : options);
  try {
    // A first round of `count` sessions, unmeasured: code loaded, JIT warm, the store's pages touched,
    // and V8's young generation grown to what this churn makes it (up to 2 x 16 MiB of semi-space,
    // resident once used, whatever the session count: counted per session it was most of the figure).
    await openRound(host, home, kind, count, 0);
    const base = await host.measure();
    await openRound(host, home, kind, count, count);
    const after = await host.measure();
    return perSession(base, after, count);
  } finally {
    await host.close();
    await rm(home, { recursive: true, force: true });
  }
}

/** Opens `count` sessions; dormant: waits until they and the `before` earlier ones are listed dormant. */
async function openRound(host, home, kind, count, before) {
  await openSessions(host, home, count);
  if (kind !== 'dormant') return;
  const client = await connectTo(host);
  try {
    const started = performance.now();
    for (;;) {
      const listing = await client.listSessions();
      const asleep = listing.filter((session) => session.status === 'dormant').length;
      if (asleep >= before + count) break;
      if (performance.now() - started > 60_000) {
        throw new Error(`only ${asleep}/${before + count} sessions went dormant`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    client.close();
  }
}

/** What `count` sessions added between two measures of the daemon process, per session, in MB. */
function perSession(base, after, count) {
  const mb = (bytes) => Number((bytes / 2 ** 20).toFixed(3));
  return {
    sessions: count,
    baseRssMB: mb(base.rss),
    afterRssMB: mb(after.rss),
    rssPerSessionMB: mb((after.rss - base.rss) / count),
    heapPerSessionMB: mb((after.heapUsed - base.heapUsed) / count),
    // V8's young generation as resident before and after (not per session: it follows the allocation rate).
    youngGenerationMB: [mb(base.youngGeneration ?? 0), mb(after.youngGeneration ?? 0)],
    // The same RSS without what the young generation grew by between the two measures: its semi-spaces
    // grow with the round's allocation rate and stay resident (0-6 MB in runs of the same code), which
    // a per-session figure of 0.02 MB cannot absorb. The target is judged on this one.
    rssBeyondYoungPerSessionMB: mb(
      (after.rss - base.rss - ((after.youngGeneration ?? 0) - (base.youngGeneration ?? 0))) / count,
    ),
  };
}

/**
 * Sessions in the store of the restart case: two fresh daemons differ by 1-3 MB of RSS whatever they
 * hold, which at 100 sessions read as 0.01-0.03 MB a session against a 0.02 MB target.
 */
const RESTARTED_DORMANT_SESSIONS = 1_000;

/**
 * Dormant after a restart, the common way a session is dormant: a store filled by one daemon
 * (`count` sessions plus the warm one), then a fresh daemon on it, against a fresh daemon on a store
 * of the warm session alone. Each fresh daemon lists its sessions once (every record read) before
 * it is measured. What a dormant session holds then is its record, with no allocator history of a
 * harness process or an adapter behind it.
 */
async function restartedDormant({ benchDir, root }, count) {
  const homes = [];
  const fill = async (sessions) => {
    const home = await mkdtemp(join(tmpdir(), 'reins-bench-daemon-restart-'));
    homes.push(home);
    const host = await startDaemonHost(benchDir, hostOptions({ benchDir, root }, home, 1, 1_000_000));
    try {
      await openSessions(host, home, sessions);
    } finally {
      await host.close();
    }
    return home;
  };
  const restarted = async (home) => {
    const host = await startDaemonHost(benchDir, hostOptions({ benchDir, root }, home, 1, 1_000_000));
    try {
      const client = await connectTo(host);
      let listed;
      try {
        listed = await client.listSessions();
      } finally {
        client.close();
      }
      const dormant = listed.filter((session) => session.status === 'dormant').length;
      return { ...(await host.measure()), dormant };
    } finally {
      await host.close();
    }
  };
  try {
    const baseHome = await fill(1);
    const fullHome = await fill(1 + count);
    // And three restarts of each, alternated: the median of each side.
    const bases = [];
    const afters = [];
    for (let round = 0; round < 3; round++) {
      bases.push(await restarted(baseHome));
      afters.push(await restarted(fullHome));
    }
    const dormant = Math.min(...afters.map((after) => after.dormant));
    if (dormant < count + 1) throw new Error(`only ${dormant}/${count + 1} sessions listed dormant`);
    const median = (measures) => [...measures].sort((a, b) => a.rss - b.rss)[1];
    const mb = (measure) => Number((measure.rss / 2 ** 20).toFixed(3));
    return {
      ...perSession(median(bases), median(afters), count),
      restartsRssMB: { base: bases.map(mb), after: afters.map(mb) },
    };
  } finally {
    for (const home of homes) await rm(home, { recursive: true, force: true });
  }
}

// ---- the section ----------------------------------------------------------------------------------

function report(result) {
  const rows = Object.entries(result.latency).map(
    ([rate, entry]) =>
      `  ${rate.padEnd(8)} WebSocket p50 ${entry.daemonMicros.p50} p99 ${entry.daemonMicros.p99} µs; in-process p50 ${entry.inProcessMicros.p50} p99 ${entry.inProcessMicros.p99} µs; added p50 ${entry.addedP50Micros} p99 ${entry.addedP99Micros} µs (split p50/p99: to the daemon ${entry.split.toDaemonMicros.p50}/${entry.split.toDaemonMicros.p99}, daemon -> client ${entry.split.daemonToClientMicros.p50}/${entry.split.daemonToClientMicros.p99} µs); CPU per event: daemon ${entry.daemonCpuMicrosPerFrame} µs, in-process ${entry.inProcessCpuMicrosPerFrame} µs`,
  );
  const f = result.fanOut;
  const g = result.fanOutWithoutNative;
  const m = result.memory;
  return [
    '\n8. Daemon: added latency per event over the WebSocket (client process) against in-process; fan-out; RSS per session',
    ...rows,
    `  fan-out  ${f.clients} clients x ${f.sessions} sessions, every client on every session: ${f.eventsPerSecDelivered} events/s delivered (${f.eventsPerSecIngested}/s in), lost ${f.lostDeltas}, gaps ${f.seqGaps}; daemon CPU per event in ${f.daemonCpuMicrosPerEventIn} µs (its socket writes alone: ${f.socketFloorCpuMicrosPerEventIn['1/tick']} µs at 1 event per tick, ${f.socketFloorCpuMicrosPerEventIn['16/tick']} at 16)`,
    `  fan-out  the same, clients without native frames (not judged): ${g.eventsPerSecDelivered} events/s delivered, lost ${g.lostDeltas}, gaps ${g.seqGaps}; daemon CPU per event in ${g.daemonCpuMicrosPerEventIn} µs (floor ${g.socketFloorCpuMicrosPerEventIn['1/tick']} / ${g.socketFloorCpuMicrosPerEventIn['16/tick']}); clients' CPU per event ${g.clientCpuMicrosPerEvent} µs (with native frames ${f.clientCpuMicrosPerEvent})`,
    `  RSS      ${m.hosted.rssPerSessionMB} MB per hosted session, ${m.dormant.rssPerSessionMB} MB per dormant session (evicted), ${m.restartedDormant?.rssPerSessionMB ?? 'n/a'} MB per dormant session after a restart (${m.hosted.sessions} hosted and evicted, ${m.restartedDormant?.sessions ?? 'n/a'} after a restart; daemon process only, after GC)`,
    `           without the young generation's growth: ${m.hosted.rssBeyondYoungPerSessionMB}, ${m.dormant.rssBeyondYoungPerSessionMB}, ${m.restartedDormant?.rssBeyondYoungPerSessionMB ?? 'n/a'} MB; heap ${m.hosted.heapPerSessionMB}, ${m.dormant.heapPerSessionMB}, ${m.restartedDormant?.heapPerSessionMB ?? 'n/a'} MB`,
    '',
  ].join('\n');
}

export async function run({ quick, log, benchDir, root }) {
  const context = { benchDir, root };
  log('   (a) added latency per event, emitter -> daemon -> WebSocket -> client process, against in-process');
  const added = await latency(context, quick, log);
  log('   (b) events/s delivered to 10 clients x 100 sessions');
  const fanOutResult = await fanOut(context, quick, log);
  // Not judged: the same with clients that asked for events without native frames (omitNative).
  log('   (b2) the same, every client without native frames');
  const fanOutWithoutNative = await fanOut(context, quick, log, { omitNative: true });
  log('   (c) daemon RSS per hosted and per dormant session');
  const memory = {};
  for (const kind of ['hosted', 'dormant']) {
    memory[kind] = await memoryPer(context, kind, 100);
    log(
      `   ${kind}: ${memory[kind].rssPerSessionMB} MB RSS (${memory[kind].rssBeyondYoungPerSessionMB} without the young generation's growth), ${memory[kind].heapPerSessionMB} MB heap per session (RSS ${memory[kind].baseRssMB} -> ${memory[kind].afterRssMB} MB, ${memory[kind].sessions} sessions after a warm round of as many; V8's young generation ${memory[kind].youngGenerationMB.join(' -> ')} MB)`,
    );
  }
  memory.restartedDormant = await restartedDormant(context, RESTARTED_DORMANT_SESSIONS);
  const r = memory.restartedDormant;
  log(
    `   dormant after a restart: ${r.rssPerSessionMB} MB RSS, ${r.heapPerSessionMB} MB heap per session (RSS ${r.baseRssMB} -> ${r.afterRssMB} MB, ${r.sessions} sessions)`,
  );
  const result = { latency: added, fanOut: fanOutResult, fanOutWithoutNative, memory };
  return { ...result, report: report(result) };
}
