// `reins daemon`: the Reins daemon in the foreground. It prints where it listens and where its
// daemon.json is (never the token, nor a --token-file's content), logs JSON lines on stderr (pino, --log-level), and on SIGINT or
// SIGTERM stops every harness process group (sessions stay in the store, dormant, and resume on
// the next send after a restart), closes every socket, removes daemon.json and exits 0.
import { join } from 'node:path';
import { HARNESS_IDS, type HarnessId, isHarnessId, ReinsError } from '@reins/core';
import {
  CLUSTER_ROLES,
  type ClusterNode,
  createLogger,
  type Daemon,
  formatLabels,
  LOG_LEVELS,
  type LogLevel,
  parseClusterUrls,
  parseLabels,
  parseRole,
  repairStore,
  STORE_FILE,
  startCluster,
  startDaemon,
} from '@reins/daemon';
import { reinsHome } from '@reins/harnesses';
import { parseFlags } from '../args.js';
import { type CliIo, EXIT, UsageError } from '../io.js';

export const DAEMON_HELP = `Usage: reins daemon [--port <n> | --listen <host:port>] [--token-file <path>]
                    [--public-origin <url>]... [--allow-origin <url>]... [--idle-ttl <duration>]
                    [--max-live-sessions <n>] [--warm <harness>=<n>,... [--no-warm-thread]]
                    [--log-level <level>]
                    [--cluster nats://HOST:PORT [--role gateway|worker|all] [--labels key=value,...]
                     [--heartbeat-ttl <duration>]]
       reins daemon --repair

Runs the Reins daemon in the foreground: a WebSocket server on 127.0.0.1 (or --listen; JSON-RPC,
protocol 2; protocol 1 clients keep working) through which a web UI, a bot or another program
drives any harness with the same session model (use @reins/client).

Sessions are durable: each one's settings, native conversation id and whole event log are kept in
$REINS_HOME/reins.db (SQLite). They survive a client's disconnect, a restart of the daemon and a
crash: after one, a session is "dormant" and the next send resumes its conversation in a new
harness process. Idle sessions are put to sleep the same way (--idle-ttl, --max-live-sessions);
a session with a running turn, a pending approval or background work never is.

The url, pid and a fresh secret token (or the --token-file one) are written to
$REINS_HOME/daemon.json (default ~/.reins, mode 0600); every connection must present the token.
$REINS_HOME must not be writable by group or others. Browsers are refused unless their origin is
allowed with --allow-origin. Logs are JSON lines on stderr. Ctrl+C (or SIGTERM) stops every
harness process, removes daemon.json and exits 0.

Options:
      --port <n>               port on 127.0.0.1 (default 0: any free port, see daemon.json)
      --listen <host:port>     the IP address and port to bind instead, e.g. 0.0.0.0:7777 or [::]:7777;
                               an address other machines reach needs --token-file
      --token-file <path>      the token clients must present, read from this file (mode 0600 or 0400,
                               at least 32 characters: openssl rand -base64 32) instead of a random one
                               per start, so every gateway behind one address accepts the same token
      --public-origin <url>    where clients reach this daemon through a Service or an ingress, e.g.
                               http://reins-gateway.agents.svc:7777 or https://reins.example.com
                               (repeatable): that Host is accepted and the console works there
      --allow-origin <url>     let web pages from this origin connect (repeatable), e.g. http://localhost:5173
      --idle-ttl <duration>    stop an idle session's process after this long: 90s, 30m, 2h
                               (default 30m; 0: never)
      --max-live-sessions <n>  at most this many harness processes; the least recently used idle
                               session sleeps first (default 32)
      --warm <harness>=<n>,... keep n harness processes started and initialised ahead per harness, so a
                               new session skips the cold start, e.g. codex=1 (Codex sessions also share
                               one app-server; a harness without warm starts is refused). A warm
                               Codex also opens the next session's thread ahead, with the settings
                               (cwd, model, posture, ...) of the last Codex session started here: the
                               next session in the same project skips thread/start; one that differs
                               opens its own and says why in an info notice
      --no-warm-thread         warm Codex app-servers open no thread ahead
      --log-level <level>      ${LOG_LEVELS.join(', ')} (default info)
      --repair                 salvage a damaged store: copy every session and event that still
                               reads into a new $REINS_HOME/reins.db, keep the damaged file beside
                               it (reins.db.damaged-<time>), print what was kept and lost, and exit
  -h, --help                   this help

Cluster mode (--cluster): many machines, one set of sessions, on NATS JetStream. Workers host the
harness processes (their sessions' records, events and liveness live in JetStream); gateways serve
this same WebSocket protocol for every session of the cluster, replaying any session by seq.
A session goes to a worker whose --labels include every label session/create asks for; when a
worker dies its sessions are "lost", their running turns end failed, and the next send resumes
them on a matching worker. Without --cluster nothing of this runs (SQLite, one machine).
      --cluster <url>          NATS with JetStream, nats://HOST:PORT (comma-separated for several)
      --role <role>            ${CLUSTER_ROLES.join(', ')} (default all: both in this process); a worker
                               serves no WebSocket
      --labels <k=v,...>       this worker's labels, e.g. host=build-3,gpu=yes
      --heartbeat-ttl <dur>    a worker silent this long is gone (default 10s; at least 1s)

Exit codes: 0 stopped by SIGINT/SIGTERM (or repaired), 1 failed, 2 bad usage (or the port is
taken, another daemon runs on this $REINS_HOME, or its store is damaged: the message says how to
move it aside or --repair it).

Examples:
  reins daemon
  reins daemon --port 7777 --allow-origin http://localhost:5173
  reins daemon --idle-ttl 10m --max-live-sessions 8 --log-level debug
  reins daemon --warm codex=1
  reins daemon --cluster nats://10.0.0.5:4222 --role worker --labels host=build-3
  reins daemon --cluster nats://10.0.0.5:4222 --role gateway
  reins daemon --cluster nats://nats:4222 --role gateway --listen 0.0.0.0:7777 \\
    --token-file /var/run/reins/token --public-origin http://reins-gateway.agents.svc:7777`;

function parseDaemonArgs(argv: string[]) {
  return parseFlags({
    args: argv,
    options: {
      port: { type: 'string' },
      listen: { type: 'string' },
      'token-file': { type: 'string' },
      'public-origin': { type: 'string', multiple: true },
      'allow-origin': { type: 'string', multiple: true },
      'idle-ttl': { type: 'string' },
      'max-live-sessions': { type: 'string' },
      'log-level': { type: 'string' },
      warm: { type: 'string' },
      'no-warm-thread': { type: 'boolean' },
      cluster: { type: 'string' },
      role: { type: 'string' },
      labels: { type: 'string' },
      'heartbeat-ttl': { type: 'string' },
      repair: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
    strict: true,
  });
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** "90s", "30m", "2h", "500ms" or "0" -> ms. */
export function parseDuration(value: string, flag: string): number {
  if (value.trim() === '0') return 0;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value.trim());
  if (!match) {
    throw new UsageError(`${flag} must be a duration like 90s, 30m or 2h (or 0 for never), got "${value}".`);
  }
  return Math.round(Number(match[1]) * (UNITS[match[2] as string] as number));
}

export async function daemonCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseDaemonArgs(argv);
  if (values.help) {
    io.stdout.write(`${DAEMON_HELP}\n`);
    return EXIT.completed;
  }
  if (values.repair) return repairCommand(argv, io);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65_535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${values.port}".`);
  }
  const idleTtlMs = values['idle-ttl'] === undefined ? undefined : parseDuration(values['idle-ttl'], '--idle-ttl');
  const maxLive = values['max-live-sessions'];
  if (maxLive !== undefined && (!/^\d+$/.test(maxLive) || Number(maxLive) < 1)) {
    throw new UsageError(`--max-live-sessions must be a whole number of at least 1, got "${maxLive}".`);
  }
  const level = values['log-level'] ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${level}".`);
  }
  const warm = values.warm === undefined ? undefined : parseWarm(values.warm);
  if (warm && values.cluster !== undefined) throw new UsageError('--warm is for a daemon without --cluster (for now).');
  if (values['no-warm-thread'] && !warm) throw new UsageError('--no-warm-thread goes with --warm codex=<n>.');
  if (values.listen !== undefined && values.port !== undefined) {
    throw new UsageError('--listen HOST:PORT already says the port: give --listen or --port, not both.');
  }
  const served = {
    ...(values.listen !== undefined ? { listen: values.listen } : { port }),
    ...(values['token-file'] !== undefined ? { tokenFile: values['token-file'] } : {}),
    publicOrigins: values['public-origin'] ?? [],
    allowOrigins: values['allow-origin'] ?? [],
    home: reinsHome(io.env),
    logger: createLogger({ level: level as LogLevel }),
    ...(idleTtlMs !== undefined ? { idleTtlMs } : {}),
    ...(maxLive !== undefined ? { maxLiveSessions: Number(maxLive) } : {}),
  };
  const cluster = clusterOptions(values);
  const node: ClusterNode | undefined = cluster ? await startCluster({ ...served, ...cluster }) : undefined;
  const daemon: Daemon | undefined = node
    ? node.daemon
    : await startWarmDaemon({ ...served, ...(values['no-warm-thread'] ? { warmThread: false } : {}) }, warm);
  const closeAll = () => (node ? node.close() : (daemon as Daemon).close());
  // Signal handlers first: whoever waits for "Press Ctrl+C" may signal right after reading it.
  const stopped = new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // A second signal: stop waiting. The exit hooks still kill every harness process group
        // and remove daemon.json; the next start reaps anything left over.
        process.exit(EXIT.failed);
      }
      stopping = true;
      io.stdout.write(`Stopping (${signal}): stopping every session's process (they resume on the next start)...\n`);
      closeAll().then(
        () => resolve(EXIT.completed),
        (error: unknown) => {
          io.stderr.write(`reins daemon: closing failed: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve(EXIT.failed);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  if (node?.worker) {
    io.stdout.write(
      `Reins worker ${node.worker.id} joined the cluster at ${node.location} (labels ${formatLabels(node.worker.labels)})\n`,
    );
  }
  if (daemon) {
    const bound = daemon.url.endsWith(`//${daemon.address}`) ? '' : ` (bound to ${daemon.address})`;
    io.stdout.write(`Reins ${node ? 'gateway' : 'daemon'} listening on ${daemon.url}${bound}\n`);
    if (values['public-origin']?.length) io.stdout.write(`Public origins: ${values['public-origin'].join(', ')}\n`);
    io.stdout.write(`Connection details (url, token): ${daemon.infoPath}\n`);
    if (values['token-file'] !== undefined) {
      io.stdout.write(
        `Clients present the token in ${values['token-file']} (shared by every daemon started with it)\n`,
      );
    }
  }
  io.stdout.write(`Sessions are kept in ${node ? `NATS JetStream at ${node.location}` : daemon?.storeLocation}\n`);
  io.stdout.write('Press Ctrl+C to stop.\n');
  const code = await stopped;
  if (code === EXIT.completed) io.stdout.write('Stopped.\n');
  return code;
}

/** `reins daemon --repair`: the store of $REINS_HOME salvaged (daemon's store/repair.ts), then exit. */
async function repairCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.some((arg) => arg !== '--repair')) throw new UsageError('--repair takes no other flag.');
  const report = await repairStore(join(reinsHome(io.env), STORE_FILE));
  io.stdout.write(
    `Repaired ${join(reinsHome(io.env), STORE_FILE)}: kept ${report.sessions} session(s) and ${report.events} event(s); ` +
      `lost ${report.lostEvents} event(s) (each is an error event in its log), ${report.lostSessions} session(s) that did not read ` +
      `and ${report.orphanEvents} event(s) of those. The damaged file is kept at ${report.damagedCopy}.\n`,
  );
  return EXIT.completed;
}

/** "codex=1,claude-code=2" -> { codex: 1, 'claude-code': 2 }; a bad entry is a usage error. */
export function parseWarm(value: string): Partial<Record<HarnessId, number>> {
  const warm: Partial<Record<HarnessId, number>> = {};
  for (const entry of value.split(',')) {
    const match = /^\s*([a-z0-9-]+)\s*=\s*(\d+)\s*$/.exec(entry);
    if (!match) {
      throw new UsageError(
        `--warm takes harness=count pairs separated by commas, like codex=1,claude-code=2; got "${entry}".`,
      );
    }
    const [, id, count] = match as unknown as [string, string, string];
    if (!isHarnessId(id))
      throw new UsageError(`--warm: unknown harness "${id}". Known harnesses: ${HARNESS_IDS.join(', ')}.`);
    warm[id] = Number(count);
  }
  return warm;
}

/** startDaemon with warm processes; a harness without warm starts is a usage error naming those with them. */
async function startWarmDaemon(
  served: Parameters<typeof startDaemon>[0],
  warm: Partial<Record<HarnessId, number>> | undefined,
): Promise<Daemon> {
  try {
    return await startDaemon({ ...served, ...(warm ? { warm } : {}) });
  } catch (error) {
    if (ReinsError.isInstance(error) && error.operation === 'warm') throw new UsageError(`--warm: ${error.message}`);
    throw error;
  }
}

/** The cluster flags, checked; undefined without --cluster (then none of them may be given). */
function clusterOptions(values: {
  cluster?: string;
  role?: string;
  labels?: string;
  'heartbeat-ttl'?: string;
  port?: string;
  listen?: string;
  'token-file'?: string;
  'public-origin'?: string[];
  'allow-origin'?: string[];
}) {
  if (values.cluster === undefined) {
    for (const flag of ['role', 'labels', 'heartbeat-ttl'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} needs --cluster nats://HOST:PORT.`);
    }
    return undefined;
  }
  try {
    const role = parseRole(values.role);
    const gatewayFlags = ['port', 'listen', 'token-file', 'public-origin', 'allow-origin'] as const;
    const given = gatewayFlags.filter((flag) => values[flag] !== undefined).map((flag) => `--${flag}`);
    if (role === 'worker' && given.length > 0) {
      throw new UsageError(
        `A worker (--role worker) serves no clients: ${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} for gateways.`,
      );
    }
    if (role === 'gateway' && values.labels !== undefined) {
      throw new UsageError("--labels are a worker's (sessions are placed on workers): use --role worker or all.");
    }
    parseClusterUrls(values.cluster);
    return {
      cluster: values.cluster,
      role,
      labels: parseLabels(values.labels),
      ...(values['heartbeat-ttl'] !== undefined
        ? { heartbeatTtlMs: parseDuration(values['heartbeat-ttl'], '--heartbeat-ttl') }
        : {}),
    };
  } catch (error) {
    if (ReinsError.isInstance(error) && error.code === 'invalid_input') throw new UsageError(error.message);
    throw error;
  }
}
