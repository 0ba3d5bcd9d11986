#!/usr/bin/env node
// A Reins daemon in a process of its own, for the daemon section: its RSS is then the daemon's alone
// (harness children are other processes; the clients are too). Options come as JSON in
// BENCH_DAEMON_OPTIONS (startDaemon's, serializable: home, harnesses, harnessOptions, limits). Prints
// {url, token} on its first stdout line; then each stdin line is a command:
//   measure  -> GC three times (run it with --expose-gc), print process.memoryUsage(), V8's young
//               generation as resident (youngGeneration, bytes) and the CPU time used so far
//               (cpuMicros, user + system; cpuMicrosWhenAsked before the collections), and the kernel's VmRSS / VmHWM (peak) in bytes, as JSON
//   reset-peak -> the kernel's peak RSS (VmHWM) set back to the current RSS (/proc/self/clear_refs 5),
//               and the live peak below restarted; prints the status figures as JSON
// With BENCH_HOST_LIVE_SAMPLE_MS set, the host collects garbage every that many ms and keeps the
// largest heap used + external memory seen (measure's livePeak): what the daemon holds at its
// peak, without the garbage V8 lets pile up between collections (which the RSS figures include).
//   close    -> daemon.close() (harness processes stopped), exit
// BENCH_DAEMON_WARM_THREAD=0 starts it with warmThread: false (warm Codex app-servers open no thread
// ahead for the last session), to measure a warm daemon with and without threads opened ahead.
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { getHeapSpaceStatistics } from 'node:v8';
import { startDaemon } from '@reins/daemon';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const options = JSON.parse(process.env.BENCH_DAEMON_OPTIONS ?? '{}');
if (process.env.BENCH_DAEMON_WARM_THREAD === '0') options.warmThread = false;
const daemon = await startDaemon({ ...options, logger: silent, consoleDir: false });
process.stdout.write(`${JSON.stringify({ url: daemon.url, token: daemon.token })}\n`);

let livePeak = 0;
const sampleMs = Number(process.env.BENCH_HOST_LIVE_SAMPLE_MS ?? 0);
if (sampleMs > 0) {
  setInterval(() => {
    globalThis.gc?.();
    const usage = process.memoryUsage();
    livePeak = Math.max(livePeak, usage.heapUsed + usage.external);
  }, sampleMs).unref();
}

/** VmRSS and VmHWM (the peak since start or the last reset) of this process, in bytes. */
function status() {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(text)?.[1] ?? Number.NaN) * 1024;
  return { vmRss: kb('VmRSS'), vmHwm: kb('VmHWM') };
}

async function settle() {
  // The CPU time when asked too: a window between two measures then leaves out the collections below
  // (~110 ms of CPU with 100 sessions open), which are the measurement's and not the daemon's work.
  const asked = process.cpuUsage();
  for (let index = 0; index < 3; index++) {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const cpu = process.cpuUsage();
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return {
    ...process.memoryUsage(),
    youngGeneration: young?.physical_space_size,
    cpuMicros: cpu.user + cpu.system,
    cpuMicrosWhenAsked: asked.user + asked.system,
    livePeak,
    ...status(),
  };
}

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line === 'measure') process.stdout.write(`${JSON.stringify(await settle())}\n`);
  else if (line === 'reset-peak') {
    writeFileSync('/proc/self/clear_refs', '5');
    livePeak = 0;
    process.stdout.write(`${JSON.stringify(status())}\n`);
  } else if (line === 'close') {
    await daemon.close();
    process.exit(0);
  }
});
