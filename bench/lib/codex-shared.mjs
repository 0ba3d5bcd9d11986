// Issue 21 items 2 and 3 for Codex (the pinned app-server, scripted model server, hermetic home):
//   - total memory, children included, at N idle sessions sharing one app-server against one
//     app-server per session (`shareProcess: false`): this process and every descendant, their private
//     pages plus the shared ones once (familyMemory), PSS and the RSS sum beside it;
//   - per-session start (createSession) on a shared app-server after the first session;
//   - new session to first text delta on a warm app-server (`harness.warm(1)` with
//     `warmThread`: the app-server opens the session's thread ahead) against the raw cold path (spawn
//     `codex app-server`, initialize, thread/start, turn/start with the bench's own client); floors: the
//     raw client's first turn on an initialised app-server with and without its thread started ahead.
// Called from the memory section (bench/sections/memory.mjs); the rows are in bench/lib/targets.mjs.
import { readdirSync, readFileSync } from 'node:fs';
import { createHarness } from '@reins/harnesses';
import { coldTurn, PROMPT_MARK, pathContext, turnPaths } from '../sections/turns.mjs';
import { LineRpc } from './rpc.mjs';
import { summarize } from './stats.mjs';

const now = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** This process and every descendant (harness children run in their own groups, but are children). */
function familyPids() {
  const parents = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const family = [process.pid];
  for (let index = 0; index < family.length; index++) {
    for (const [pid, ppid] of parents) if (ppid === family[index]) family.push(pid);
  }
  return family;
}

function kB(path, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(path, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Memory (MB) of this process and its descendants, after a GC. `totalMB`, the figure judged: every
 * process's private pages plus the largest shared set once (the Codex binary's pages are the same in
 * every app-server; PSS would split them with whatever else on the machine maps them too, so it moves
 * with other work). PSS and the plain RSS sum beside it.
 */
function familyMemory() {
  globalThis.gc?.();
  const pids = familyPids();
  let pss = 0;
  let rss = 0;
  let priv = 0;
  let sharedOnce = 0;
  let reins = 0;
  for (const pid of pids) {
    const rollup = `/proc/${pid}/smaps_rollup`;
    pss += kB(rollup, 'Pss');
    rss += kB(`/proc/${pid}/status`, 'VmRSS');
    priv += kB(rollup, 'Private_Clean') + kB(rollup, 'Private_Dirty');
    sharedOnce = Math.max(sharedOnce, kB(rollup, 'Shared_Clean') + kB(rollup, 'Shared_Dirty'));
    if (pid === process.pid) reins = kB(`/proc/${pid}/status`, 'VmRSS');
  }
  const mb = (value) => Number((value / 1024).toFixed(1));
  // Where it goes: the Reins process (this one: the same in both modes) and the harness processes.
  return {
    processes: pids.length,
    totalMB: mb(priv + sharedOnce),
    reinsProcessMB: mb(reins),
    harnessMB: mb(priv + sharedOnce - reins),
    pssMB: mb(pss),
    rssMB: mb(rss),
  };
}

/** Drains a session's events; resolves `firstText` at its first text delta. */
function watch(session) {
  let onText;
  const firstText = new Promise((resolve) => {
    onText = resolve;
  });
  const misses = [];
  const done = (async () => {
    for await (const event of session.events) {
      if (event.type === 'item.delta' && event.kind === 'text') onText(now());
      else if (event.type === 'notice' && event.data?.warmThread === 'missed') misses.push(event.data.reason);
    }
  })();
  return { firstText, done, misses };
}

async function openIdle(harness, context, count, startMs, afterFirst) {
  const sessions = [];
  for (let index = 0; index < count; index++) {
    const t0 = now();
    const session = await harness.createSession({ cwd: context.cwd });
    startMs?.push(now() - t0);
    sessions.push({ session, ...watch(session) });
    if (index === 0) await afterFirst?.();
  }
  return sessions;
}

async function closeAll(sessions) {
  for (const { session, done } of sessions) {
    await session.close();
    await done;
  }
}

/**
 * The floor of the warm path: on a freshly initialised app-server (the bench's own client; spawn and
 * initialize untimed, like a warm one), a new thread (thread/start) and its first turn to the first
 * text delta; with `threadAhead`, the thread is started before the clock too (only the first turn).
 */
async function rawWarmFloor(context, runs, threadAhead) {
  const { command, args, env } = context.launch;
  const samples = [];
  for (let run = -1; run < runs; run++) {
    const rpc = new LineRpc(command, args, { env, cwd: context.cwd });
    try {
      let onText;
      const first = new Promise((resolve) => {
        onText = resolve;
      });
      rpc.onNotification = (method, params) => {
        if (method === 'item/agentMessage/delta' && params?.delta) onText(now());
      };
      await rpc.request('initialize', {
        clientInfo: { name: 'reins-bench', title: 'Reins bench', version: '0.0.0' },
        capabilities: { experimentalApi: false },
      });
      rpc.notify('initialized', {});
      const startThread = () =>
        rpc.request('thread/start', { cwd: context.cwd, approvalPolicy: 'never', sandbox: 'danger-full-access' });
      const ahead = threadAhead ? await startThread() : undefined;
      await sleep(300); // as a warm process waits for its session
      const t0 = now();
      const started = ahead ?? (await startThread());
      await rpc.request('turn/start', {
        threadId: started.thread.id,
        input: [{ type: 'text', text: `${PROMPT_MARK} raw warm ${run}: say hello.`, text_elements: [] }],
      });
      const at = await first;
      if (run >= 0) samples.push(at - t0);
    } finally {
      await rpc.close();
    }
  }
  return summarize(samples);
}

export async function codexShared({ quick, log }) {
  const { reply, startModelServer } = await import('@reins/testkit');
  const server = await startModelServer();
  server.when(PROMPT_MARK, reply().text('Hello from the bench.').usage({ input: 20, output: 6 }), { persistent: true });
  const context = await pathContext({ id: 'codex-shared', harness: 'codex' }, server.url);
  const options = (extra) => ({ binaryPath: context.binary.command, baseEnv: context.launch.env, ...extra });
  const idle = quick ? 10 : 20;
  const out = { version: context.binary.version, idleSessions: idle, memory: {}, errors: [] };
  try {
    // Memory at `idle` idle sessions, each mode from the same baseline (no Codex running).
    const base = familyMemory();
    out.memory.baseline = base;
    const sharedStartMs = [];
    for (const mode of ['shared', 'per-session']) {
      const harness = await createHarness('codex', options({ shareProcess: mode === 'shared' }));
      let first;
      const sessions = await openIdle(
        harness,
        context,
        idle,
        mode === 'shared' ? sharedStartMs : undefined,
        async () => {
          await sleep(1_500);
          first = familyMemory();
        },
      );
      await sleep(1_500); // thread start-up work (shell snapshot, lsb_release) settles
      const measured = familyMemory();
      // What each session after the first adds (the Reins process and the harness processes together).
      const perSessionMB = Number(((measured.totalMB - first.totalMB) / (idle - 1)).toFixed(2));
      // Whose it is: the Reins process (its session objects) or the harness processes (Codex's threads).
      const perSessionReinsMB = Number(((measured.reinsProcessMB - first.reinsProcessMB) / (idle - 1)).toFixed(2));
      out.memory[mode] = {
        ...measured,
        aboveBaselineMB: Number((measured.totalMB - base.totalMB).toFixed(1)),
        firstSession: first,
        perSessionAfterFirstMB: perSessionMB,
        perSessionReinsMB,
        perSessionHarnessMB: Number((perSessionMB - perSessionReinsMB).toFixed(2)),
      };
      log(
        `   codex ${idle} idle sessions, ${mode}: ${measured.processes - base.processes} processes, ${measured.totalMB} MB (Reins process ${measured.reinsProcessMB}, harness ${measured.harnessMB}; PSS ${measured.pssMB}, RSS sum ${measured.rssMB} MB); one session ${first.totalMB} MB; each further session ${perSessionMB} MB (Reins process ${perSessionReinsMB}, harness ${out.memory[mode].perSessionHarnessMB})`,
      );
      await closeAll(sessions);
    }
    // The whole family, Reins included: what running N sessions costs the machine either way.
    out.memory.sharedVsPerSession = Number((out.memory.shared.totalMB / out.memory['per-session'].totalMB).toFixed(3));
    // The floor of the shared mode: its sessions after the first costing nothing at all (the fixed costs,
    // the Reins process and one app-server, against the per-session total of the same run).
    out.memory.fixedCostFloor = Number(
      (out.memory.shared.firstSession.totalMB / out.memory['per-session'].totalMB).toFixed(3),
    );
    log(
      `   codex memory floor: one session's total (${out.memory.shared.firstSession.totalMB} MB) / ${idle} with a process each = ${out.memory.fixedCostFloor}x`,
    );
    out.memory.marginalSharedVsPerSession = Number(
      (out.memory.shared.perSessionAfterFirstMB / out.memory['per-session'].perSessionAfterFirstMB).toFixed(3),
    );
    out.sharedStart = {
      firstSessionMs: Number(sharedStartMs[0]?.toFixed(1)),
      laterSessionMs: summarize(sharedStartMs.slice(1), { digits: 1 }),
    };
    log(
      `   codex start on a shared app-server: first ${out.sharedStart.firstSessionMs} ms, later median ${out.sharedStart.laterSessionMs.median} ms`,
    );

    // New session to first text delta: raw cold path against a warm Reins app-server.
    const runs = quick ? 3 : 7;
    const raw = turnPaths({ loadCodexSdk: async () => ({}) }).find((path) => path.id === 'codex.raw-app-server');
    const rawCold = [];
    const warmFirst = [];
    const misses = [];
    // The sessions' thread settings are known ahead: each warm app-server opens their thread (issue 30, step 4).
    const harness = await createHarness('codex', options({ warmThread: { cwd: context.cwd } }));
    // The same warm start without the thread opened ahead, alternated with it (its own launch key, so its own pool).
    const plainEnv = { ...context.launch.env, REINS_BENCH_LANE: 'no-thread-ahead' };
    const plain = await createHarness('codex', options({ baseEnv: plainEnv }));
    const plainFirst = [];
    /** New session on a warm app-server of `made` to its first text delta (ms), pool refilled outside the timing. */
    const warmStart = async (made, run, label) => {
      await made.warm(1);
      await sleep(300); // as long as the raw floor waits after initialize
      const t0 = now();
      const session = await made.createSession({ cwd: context.cwd });
      const watched = watch(session);
      await session.send(`${PROMPT_MARK} ${label} ${run}: say hello.`);
      const first = await watched.firstText;
      await session.close();
      await watched.done;
      return { ms: first - t0, misses: watched.misses };
    };
    for (let run = -1; run < runs; run++) {
      const cold = await coldTurn(raw, context, `${PROMPT_MARK} raw cold ${run}: say hello.`);
      const order = run % 2 === 0 ? ['ahead', 'plain'] : ['plain', 'ahead'];
      const took = {};
      for (const lane of order) took[lane] = await warmStart(lane === 'ahead' ? harness : plain, run, `warm ${lane}`);
      misses.push(...took.ahead.misses);
      if (run < 0) continue; // warm-up
      rawCold.push(cold.firstMs);
      warmFirst.push(took.ahead.ms);
      plainFirst.push(took.plain.ms);
      log(
        `   codex first text: raw cold ${cold.firstMs.toFixed(0)} ms, Reins warm ${took.ahead.ms.toFixed(0)} ms (without the thread ahead ${took.plain.ms.toFixed(0)} ms)${took.ahead.misses.length ? ` (thread ahead missed: ${took.ahead.misses.join(', ')})` : ''}`,
      );
    }
    await harness.warm(0);
    await plain.warm(0);
    const floor = await rawWarmFloor(context, runs, false);
    const aheadFloor = await rawWarmFloor(context, runs, true);
    out.firstText = {
      rawColdMs: summarize(rawCold),
      warmMs: summarize(warmFirst),
      warmWithoutThreadAheadMs: summarize(plainFirst),
      rawWarmFloorMs: floor,
      rawThreadAheadFloorMs: aheadFloor,
      threadAheadMisses: misses,
    };
    log(
      `   codex first text, raw client on a fresh initialised app-server: thread + turn median ${floor.median} ms, turn on a thread started ahead ${aheadFloor.median} ms; Reins thread-ahead misses: ${misses.length ? misses.join(', ') : 'none'}`,
    );
  } catch (error) {
    out.errors.push(error.message);
    log(`   codex shared/warm FAILED: ${error.message}`);
  } finally {
    await server.close();
    await context.tempHome.cleanup().catch(() => {});
  }
  return out;
}
