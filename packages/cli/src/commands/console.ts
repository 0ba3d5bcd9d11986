// `reins console`: the link to the web console of the running daemon (its own port, GET /), with
// the token in the URL fragment (a fragment never reaches a server, so the token is in no request
// line and no log), and on a desktop it opens it. No daemon running: it starts one in the
// background first (logs in $REINS_HOME/daemon.log). `--demo` is console-demo.ts.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DaemonInfo } from '@reins/client';
import { ReinsError } from '@reins/core';
import { readDaemonFile } from '@reins/daemon';
import { reinsHome } from '@reins/harnesses';
import { parseFlags } from '../args.js';
import { type CliIo, EXIT, UsageError } from '../io.js';
import { consoleLink, openInBrowser } from './console-link.js';

export const CONSOLE_HELP = `Usage: reins console [--no-open] [--cwd <dir>]
       reins console --demo [--port <n>] [--no-open]

Prints the link to the Reins console, the web UI the daemon serves on its own port, and opens it
in your browser when there is a desktop. The link carries the daemon's token after the "#", which
browsers never send to a server. When no daemon runs for $REINS_HOME, one is started in the
background first (its logs: $REINS_HOME/daemon.log; stop it with the pid it prints).

--demo runs a throwaway daemon with the pinned harness CLIs (npm run setup) on Reins'
embedded scripted model, inside a loopback-only network namespace, and lets only the console's
port out to this machine's 127.0.0.1: click through a real session with no account and no network.
Ctrl+C ends it and removes everything it made.

Options:
      --no-open        only print the link
      --cwd <dir>      the folder new sessions start in (default: the current folder)
      --demo           the scripted demo described above
      --port <n>       (--demo) the port on 127.0.0.1 to serve it on (default: any free one)
  -h, --help           this help`;

/** How long a daemon started here may take to write its daemon.json. */
const START_TIMEOUT_MS = 30_000;

export async function consoleCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parse(argv);
  if (values.help) {
    io.stdout.write(`${CONSOLE_HELP}\n`);
    return EXIT.completed;
  }
  if (values.demo) {
    return (await import('./console-demo.js')).consoleDemo(io, {
      port: values.port === undefined ? 0 : parsePort(values.port),
      open: !values['no-open'],
    });
  }
  if (values.port !== undefined) throw new UsageError('--port goes with --demo (a running daemon has its own port).');
  // Checked before any daemon starts; relative to where the user typed it, not the daemon's folder.
  const cwd = await sessionFolder(values.cwd, io);
  const home = reinsHome(io.env);
  let info = await runningDaemon(home);
  if (!info) {
    const started = await startDaemonInBackground(home, io);
    info = started.info;
    io.stdout.write(`Started a Reins daemon (pid ${info.pid}); its logs: ${started.log}\n`);
  }
  const link = consoleLink(info, cwd);
  io.stdout.write(`Reins console: ${link}\n`);
  if (!values['no-open']) await openInBrowser(link, home, io);
  return EXIT.completed;
}

async function sessionFolder(given: string | undefined, io: CliIo): Promise<string> {
  if (given === undefined) return io.cwd;
  const folder = resolve(io.cwd, given);
  const info = await stat(folder).catch(() => undefined);
  if (!info) throw new UsageError(`--cwd: the folder ${folder} does not exist.`);
  if (!info.isDirectory()) throw new UsageError(`--cwd: ${folder} is not a folder.`);
  return folder;
}

function parse(argv: string[]) {
  return parseFlags({
    args: argv,
    options: {
      demo: { type: 'boolean' },
      'no-open': { type: 'boolean' },
      cwd: { type: 'string' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
    strict: true,
  });
}

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${value}".`);
  }
  return Number(value);
}

/** The daemon of `home` when its daemon.json names one that answers on its port. */
async function runningDaemon(home: string): Promise<DaemonInfo | undefined> {
  const info = await readDaemonFile(home);
  if (!info) return undefined;
  const port = new URL(info.url).port;
  try {
    // Any answer from the console route says a daemon listens there (200, or 503 when unbuilt).
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD', signal: AbortSignal.timeout(3_000) });
    return response.status === 200 || response.status === 503 ? info : undefined;
  } catch {
    return undefined; // a stale daemon.json: nothing listens
  }
}

/** `reins daemon` in its own session, detached, logging to $REINS_HOME/daemon.log; resolves once it listens. */
async function startDaemonInBackground(home: string, io: CliIo): Promise<{ info: DaemonInfo; log: string }> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const log = join(home, 'daemon.log');
  const out = openSync(log, 'a', 0o600);
  const bin = process.argv[1];
  if (!bin) throw new ReinsError('invalid_input', 'Cannot tell where the reins command is, to start its daemon.');
  const child = spawn(process.execPath, [bin, 'daemon'], {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...io.env, REINS_HOME: home },
    cwd: io.cwd,
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  child.unref();
  closeSync(out);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited !== undefined) {
      throw new ReinsError('process_exited', `The Reins daemon did not start (exit ${exited}): see ${log}.`);
    }
    const info = await readDaemonFile(home);
    if (info && info.pid === child.pid) return { info, log };
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new ReinsError('timeout', `The Reins daemon did not start within ${START_TIMEOUT_MS / 1000} s: see ${log}.`);
}
