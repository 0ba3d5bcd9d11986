// A nats-server of the test's own (Debian's package, installed by .ci/run where missing): JetStream
// on, a free port on 127.0.0.1, a temporary store folder. `stop` and `start` again keep the port
// and the store (a NATS restart), `kill` is SIGKILL.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freeLoopbackPort } from '@reins/testkit';

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  readonly running: boolean;
  /** SIGTERM and wait for the exit (JetStream flushes its files). */
  stop(): Promise<void>;
  /** SIGKILL. */
  kill(): Promise<void>;
  /** Starts again on the same port and store. */
  start(): Promise<void>;
  /** Stops it and removes the store. */
  dispose(): Promise<void>;
}

export function natsServerBinary(): string {
  const candidates = [
    process.env.REINS_NATS_SERVER,
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'nats-server')),
    '/usr/sbin/nats-server',
    '/usr/bin/nats-server',
  ].filter((path): path is string => Boolean(path));
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // next
    }
  }
  throw new Error('nats-server is not installed: apt-get install nats-server (or set REINS_NATS_SERVER).');
}

export async function startNatsServer(): Promise<NatsServer> {
  const binary = natsServerBinary();
  const port = await freeLoopbackPort();
  const storeDir = await mkdtemp(join(tmpdir(), 'reins-nats-'));
  let child: ChildProcess | undefined;
  let log = '';

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      log = '';
      const started = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child = started;
      const timer = setTimeout(() => reject(new Error(`nats-server did not start within 10 s:\n${log}`)), 10_000);
      started.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`nats-server exited with ${code}:\n${log}`));
      });
    });

  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    await exited;
  };

  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    get running() {
      return child !== undefined;
    },
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    start: launch,
    async dispose() {
      await end('SIGKILL');
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
