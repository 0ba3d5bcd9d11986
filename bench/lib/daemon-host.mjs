#!/usr/bin/env node
// A Reins daemon in a process of its own, for the daemon section: its RSS is then the daemon's alone
// (harness children are other processes; the clients are too). Options come as JSON in
// BENCH_DAEMON_OPTIONS (startDaemon's, serializable: home, harnesses, harnessOptions, limits). Prints
// {url, token} on its first stdout line; then each stdin line is a command:
//   measure  -> GC three times (run it with --expose-gc), print process.memoryUsage(), V8's young
//               generation as resident (youngGeneration, bytes) and the CPU time used so far
//               (cpuMicros, user + system) as JSON
//   close    -> daemon.close() (harness processes stopped), exit
import { createInterface } from 'node:readline';
import { getHeapSpaceStatistics } from 'node:v8';
import { startDaemon } from '@reins/daemon';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const options = JSON.parse(process.env.BENCH_DAEMON_OPTIONS ?? '{}');
const daemon = await startDaemon({ ...options, logger: silent, consoleDir: false });
process.stdout.write(`${JSON.stringify({ url: daemon.url, token: daemon.token })}\n`);

async function settle() {
  for (let index = 0; index < 3; index++) {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const cpu = process.cpuUsage();
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return { ...process.memoryUsage(), youngGeneration: young?.physical_space_size, cpuMicros: cpu.user + cpu.system };
}

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line === 'measure') process.stdout.write(`${JSON.stringify(await settle())}\n`);
  else if (line === 'close') {
    await daemon.close();
    process.exit(0);
  }
});
