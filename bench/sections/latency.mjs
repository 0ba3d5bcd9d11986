// Figure 4: added latency per event. A fake Codex app-server (bench/fakes/codex-emitter.mjs) emits
// agent-message deltas at 1k and 10k frames/s, each stamped with the monotonic clock right before
// its line is written; the delay is taken where the normalized event reaches a consumer of
// `session.events` (Reins) and, as the floor, where a bare reader of the same child's stdout has
// split and parsed the line (pipe + event loop + JSON.parse, no Reins). On the Reins path the
// runtime's frame tap (called when HarnessProcess has split the line, before anything else) also
// notes when each line arrived, which splits the delay into "until Reins had the line" and
// "inside Reins" (line split -> event consumed).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { closeGroup, deadline } from '../lib/rpc.mjs';
import { summarize } from '../lib/stats.mjs';

const stampOf = (text) => BigInt(text.slice(text.indexOf('@') + 1));
/** The emitter's number of a delta ("<n>@<stamp>"), from 1. */
const sequenceOf = (text) => Number.parseInt(text, 10);
const micros = (from) => Number(process.hrtime.bigint() - from) / 1000;

export function emitterEnv(root, frames, rate) {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    BENCH_CODEX_FIXTURE: join(root, 'packages/harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl'),
    BENCH_FRAMES: String(frames),
    BENCH_RATE: String(rate),
  };
}

/** Reins: the codex adapter on the emitter; delays at the session.events consumer. */
export async function reinsDelays({ benchDir, root, createHarness }, turns) {
  const emitter = join(benchDir, 'fakes/codex-emitter.mjs');
  const results = [];
  for (const { frames, rate, keep } of turns) {
    // Arrival of the n-th delta line at arrived[n - 1] (the emitter numbers its deltas from 1 and the
    // pipe keeps their order), in performance.now() ms (the monotonic clock of hrtime): a clock read
    // and a store per line into an array made up front, so that the measurement adds as little CPU
    // and as little for the GC as it can to the path it measures (the floor has no tap).
    const arrived = new Float64Array(frames);
    let arrivals = 0;
    const tap = (direction, line) => {
      if (direction === 'out' && arrivals < frames && line.includes('"delta":"'))
        arrived[arrivals++] = performance.now();
    };
    const harness = await createHarness('codex', {
      binaryPath: emitter,
      baseEnv: emitterEnv(root, frames, rate),
      tap,
    });
    const session = await harness.createSession({ cwd: process.cwd() });
    const delays = [];
    const inside = [];
    let finished;
    const done = new Promise((resolve) => {
      finished = resolve;
    });
    const consumer = (async () => {
      for await (const event of session.events) {
        if (event.type === 'item.delta' && event.kind === 'text') {
          const now = process.hrtime.bigint();
          delays.push(Number(now - stampOf(event.text)) / 1000);
          const n = sequenceOf(event.text);
          if (n >= 1 && n <= arrivals) inside.push((performance.now() - arrived[n - 1]) * 1000);
        } else if (event.type === 'turn.completed') finished(event);
      }
    })();
    const cpu = process.cpuUsage();
    await session.send('go');
    const terminal = await deadline(done, 60_000 + (frames / rate) * 2000, 'emitter turn');
    const used = process.cpuUsage(cpu);
    await session.close();
    await deadline(consumer, 10_000, 'event stream end');
    if (terminal.outcome.status !== 'completed') throw new Error(`emitter turn ${terminal.outcome.status}`);
    if (keep) results.push({ frames, rate, delays, inside, cpuMicros: used.user + used.system });
  }
  return results;
}

/** The floor: the same child read by a bare line splitter + JSON.parse. */
async function floorDelays({ benchDir, root, LineSplitter }, turns) {
  const results = [];
  for (const { frames, rate, keep } of turns) {
    const child = spawn(join(benchDir, 'fakes/codex-emitter.mjs'), ['app-server'], {
      env: emitterEnv(root, frames, rate),
      stdio: ['pipe', 'pipe', 'inherit'],
      detached: true,
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const delays = [];
    const done = new Promise((resolve) => {
      const splitter = new LineSplitter((line) => {
        const frame = JSON.parse(line);
        if (frame.method === 'item/agentMessage/delta') delays.push(micros(stampOf(frame.params.delta)));
        else if (frame.method === 'turn/completed') resolve();
      });
      child.stdout.on('data', (chunk) => splitter.push(chunk));
    });
    const send = (id, method, params) => child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    send(1, 'initialize', {});
    send(2, 'thread/start', {});
    const cpu = process.cpuUsage();
    send(3, 'turn/start', {});
    await deadline(done, 60_000 + (frames / rate) * 2000, 'floor turn');
    const used = process.cpuUsage(cpu);
    await closeGroup(child, exited);
    if (keep) results.push({ frames, rate, delays, cpuMicros: used.user + used.system });
  }
  return results;
}

export async function run({ quick, log, benchDir, root }) {
  const { createHarness } = await import('@reins/harnesses');
  const { LineSplitter } = await import(join(root, 'packages/harnesses/dist/runtime/lines.js'));
  const seconds = quick ? 1 : 3;
  const reps = quick ? 1 : 2;
  const deps = { benchDir, root, createHarness, LineSplitter };
  // Warm-up (JIT, page cache) for both readers, unmeasured; then floor and Reins alternate per rate
  // so that both see the same machine load. Each turn is a fresh session (and child).
  const warmUp = [{ frames: 10_000, rate: 10_000, keep: false }];
  await floorDelays(deps, warmUp);
  await reinsDelays(deps, warmUp);
  const floor = [];
  const reins = [];
  for (const rate of [1000, 10_000]) {
    const turn = [{ frames: rate * seconds, rate, keep: true }];
    const pooled = {
      floor: { frames: 0, rate, delays: [], inside: [], cpuMicros: 0 },
      reins: { frames: 0, rate, delays: [], inside: [], cpuMicros: 0 },
    };
    for (let rep = 0; rep < reps; rep++) {
      for (const [name, measure] of [
        ['floor', floorDelays],
        ['reins', reinsDelays],
      ]) {
        const [result] = await measure(deps, turn);
        pooled[name].frames += result.frames;
        pooled[name].delays.push(...result.delays);
        if (result.inside) pooled[name].inside.push(...result.inside);
        pooled[name].cpuMicros += result.cpuMicros;
      }
    }
    floor.push(pooled.floor);
    reins.push(pooled.reins);
  }
  const out = { seconds, reps, rates: {} };
  for (const [index, measured] of reins.entries()) {
    const base = floor[index];
    const entry = {
      frames: measured.frames,
      received: measured.delays.length,
      reinsMicros: summarize(measured.delays, { p99: true, digits: 1 }),
      floorMicros: summarize(base.delays, { p99: true, digits: 1 }),
      // Line split by HarnessProcess -> normalized event at the consumer: Reins' own part of the delay.
      insideReinsMicros: summarize(measured.inside, { p99: true, digits: 1 }),
    };
    // CPU time of this process per frame during the turn: the load-independent cost behind the delays.
    entry.reinsCpuMicrosPerFrame = Number((measured.cpuMicros / measured.frames).toFixed(2));
    entry.floorCpuMicrosPerFrame = Number((base.cpuMicros / base.frames).toFixed(2));
    entry.addedP99Micros = Number((entry.reinsMicros.p99 - entry.floorMicros.p99).toFixed(1));
    out.rates[`${measured.rate}/s`] = entry;
    log(
      `   ${measured.rate}/s: inside reins p50 ${entry.insideReinsMicros.p50} p99 ${entry.insideReinsMicros.p99} max ${entry.insideReinsMicros.max} µs; reins p50 ${entry.reinsMicros.p50} µs p99 ${entry.reinsMicros.p99} µs max ${entry.reinsMicros.max} µs | floor p50 ${entry.floorMicros.p50} p99 ${entry.floorMicros.p99} max ${entry.floorMicros.max} (received ${entry.received}/${entry.frames}); cpu/frame reins ${entry.reinsCpuMicrosPerFrame} µs floor ${entry.floorCpuMicrosPerFrame} µs`,
    );
  }
  return out;
}
