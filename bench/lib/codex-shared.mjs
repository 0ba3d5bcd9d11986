// Issue 21 items 2 and 3 for Codex (the pinned app-server, scripted model server, hermetic home):
//   - total memory, children included, at N idle sessions sharing one app-server against one
//     app-server per session (`shareProcess: false`): the proportional set size (PSS, so the binary's
//     pages shared by many processes count once) of this process and every descendant, RSS beside it;
//   - per-session start (createSession) on a shared app-server after the first session;
//   - new session to first text delta on a warm app-server (`harness.warm(1)`) against the raw cold
//     path (spawn `codex app-server`, initialize, thread/start, turn/start with the bench's own client).
// Called from the memory section (bench/sections/memory.mjs); the rows are in bench/lib/targets.mjs.
import { readdirSync, readFileSync } from 'node:fs';
import { createHarness } from '@reins/harnesses';
import { coldTurn, PROMPT_MARK, pathContext, turnPaths } from '../sections/turns.mjs';
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

/** PSS and RSS (MB) of this process and its descendants, after a GC. */
function familyMemory() {
  globalThis.gc?.();
  const pids = familyPids();
  let pss = 0;
  let rss = 0;
  for (const pid of pids) {
    pss += kB(`/proc/${pid}/smaps_rollup`, 'Pss');
    rss += kB(`/proc/${pid}/status`, 'VmRSS');
  }
  return { processes: pids.length, pssMB: Number((pss / 1024).toFixed(1)), rssMB: Number((rss / 1024).toFixed(1)) };
}

/** Drains a session's events; resolves `firstText` at its first text delta. */
function watch(session) {
  let onText;
  const firstText = new Promise((resolve) => {
    onText = resolve;
  });
  const done = (async () => {
    for await (const event of session.events) if (event.type === 'item.delta' && event.kind === 'text') onText(now());
  })();
  return { firstText, done };
}

async function openIdle(harness, context, count, startMs) {
  const sessions = [];
  for (let index = 0; index < count; index++) {
    const t0 = now();
    const session = await harness.createSession({ cwd: context.cwd });
    startMs?.push(now() - t0);
    sessions.push({ session, ...watch(session) });
  }
  return sessions;
}

async function closeAll(sessions) {
  for (const { session, done } of sessions) {
    await session.close();
    await done;
  }
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
      const sessions = await openIdle(harness, context, idle, mode === 'shared' ? sharedStartMs : undefined);
      await sleep(1_500); // thread start-up work (shell snapshot, lsb_release) settles
      const measured = familyMemory();
      out.memory[mode] = { ...measured, pssAboveBaselineMB: Number((measured.pssMB - base.pssMB).toFixed(1)) };
      log(
        `   codex ${idle} idle sessions, ${mode}: ${measured.processes - base.processes} processes, PSS ${measured.pssMB} MB (RSS ${measured.rssMB} MB)`,
      );
      await closeAll(sessions);
    }
    out.memory.sharedVsPerSession = Number(
      (out.memory.shared.pssAboveBaselineMB / out.memory['per-session'].pssAboveBaselineMB).toFixed(3),
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
    const harness = await createHarness('codex', options({}));
    for (let run = -1; run < runs; run++) {
      const cold = await coldTurn(raw, context, `${PROMPT_MARK} raw cold ${run}: say hello.`);
      await harness.warm(1); // outside the timing: the pool is ready again
      const t0 = now();
      const session = await harness.createSession({ cwd: context.cwd });
      const watched = watch(session);
      await session.send(`${PROMPT_MARK} warm ${run}: say hello.`);
      const first = await watched.firstText;
      await session.close();
      await watched.done;
      if (run < 0) continue; // warm-up
      rawCold.push(cold.firstMs);
      warmFirst.push(first - t0);
      log(`   codex first text: raw cold ${cold.firstMs.toFixed(0)} ms, Reins warm ${(first - t0).toFixed(0)} ms`);
    }
    await harness.warm(0);
    out.firstText = { rawColdMs: summarize(rawCold), warmMs: summarize(warmFirst) };
  } catch (error) {
    out.errors.push(error.message);
    log(`   codex shared/warm FAILED: ${error.message}`);
  } finally {
    await server.close();
    await context.tempHome.cleanup().catch(() => {});
  }
  return out;
}
