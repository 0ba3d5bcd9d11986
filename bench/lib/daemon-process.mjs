// The parent's side of bench/lib/daemon-host.mjs (a daemon in a process of its own): start it, ask
// it to measure itself or reset its peak RSS, close it; and a @reins/client connected to it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { deadline } from './rpc.mjs';

/**
 * Starts bench/lib/daemon-host.mjs with startDaemon's `options` (and `env` added to its environment);
 * its commands answer with its next stdout line. BENCH_DAEMON_NODE_ARGS (space-separated) adds Node
 * flags to the host, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the daemon under the bench.
 */
export async function startDaemonHost(benchDir, options, env = {}) {
  const nodeArgs = (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--expose-gc', join(benchDir, 'lib/daemon-host.mjs')], {
    env: { ...process.env, ...env, BENCH_DAEMON_OPTIONS: JSON.stringify(options) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = (what) =>
    deadline(
      Promise.race([
        new Promise((resolve) => waiting.push(resolve)),
        exited.then((code) => Promise.reject(new Error(`the daemon host exited (${code}) during ${what}`))),
      ]),
      120_000,
      what,
    );
  const { url, token } = JSON.parse(await next('daemon start'));
  return {
    url,
    token,
    pid: child.pid,
    async measure() {
      child.stdin.write('measure\n');
      return JSON.parse(await next('memory measure'));
    },
    /** Resets the host's peak RSS (VmHWM) to its current RSS. */
    async resetPeak() {
      child.stdin.write('reset-peak\n');
      return JSON.parse(await next('peak reset'));
    },
    async close() {
      if (child.exitCode !== null) return;
      child.stdin.write('close\n');
      await deadline(exited, 30_000, 'daemon host close').catch(() => child.kill('SIGKILL'));
    },
  };
}

export async function connectTo(host) {
  const { connect } = await import('@reins/client');
  const { WebSocket } = await import('ws');
  return connect({ url: host.url, token: host.token, WebSocket, requestTimeoutMs: 120_000 });
}
