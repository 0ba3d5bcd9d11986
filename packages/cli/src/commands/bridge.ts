// `reins bridge acp -H <harness>`: runs as an Agent Client Protocol agent on stdin/stdout in front of
// any Reins harness, so any ACP client (Zed, an editor, Reins' own ACP adapter) can drive it.
// `reins bridge codex-app-server -H <harness>`: the same, speaking `codex app-server` (v2), for any
// Codex app-server client (Codex SDKs, IDE extensions, Reins' own Codex adapter); it takes the
// arguments such clients launch `codex app-server` with. `--mode blocks`: NDJSON blocks in, App
// Server v2 notifications out, one thread. stdout carries only protocol frames; everything else,
// console output included, goes to stderr.
//
// Start-up (measured for issue 21): a bridge's cold turn is Node's start, its module graph and
// discovery before the harness even starts. So the harness's process is started first, where the
// harness keeps one warm (`warm(1)`; Codex only for now, below), and @reins/bridges (its module
// graph: the ACP SDK's zod schemas alone are ~100 ms of CPU) loads while that process starts up.
// bin/reins.js goes further where the binary is known before anything loads (-H codex with --binary or
// REINS_CODEX_BIN): the app-server starts before the bundle does, and the warm pool takes that child.
// With --daemon the sessions open in the running daemon instead (bridge-daemon.ts), whose warm
// processes skip the harness's cold start; opt-in, see docs/architecture/bridges.md, "Sessions in a daemon".
import module from 'node:module';
import { parseArgs } from 'node:util';
import type { Harness } from '@reins/core';
import { EFFORT_LEVELS, HARNESS_IDS, ReinsError } from '@reins/core';
import { createHarness, discardPrestartedChild, harnessManifest, reinsHome } from '@reins/harnesses';
import { type CliIo, EXIT, UsageError } from '../io.js';
import { wrapIndented } from '../render/wrap.js';
import { harnessFlags, usageFromReinsError } from '../session-options.js';
import { REINS_VERSION } from '../version.js';

const PROTOCOLS = ['acp', 'codex-app-server'] as const;
type Protocol = (typeof PROTOCOLS)[number];
const MODES = ['app-server', 'blocks'] as const;

/**
 * What both bridges take at start-up and the wire facts the help names: loaded only once the harness
 * is starting. Each protocol's server is its own module, so the bundle loads only the one asked for
 * (the ACP SDK's schemas are ~100 ms of CPU the Codex bridge does not need): bridge-acp.ts, bridge-codex.ts.
 */
const loadBridges = () => import('./bridge-shared.js');

export const bridgeHelp = (codexProtocolVersion: string) => `Usage: reins bridge acp -H <harness> [options]
       reins bridge codex-app-server -H <harness> [codex app-server options] [options]
       reins bridge codex-app-server --mode blocks -H <harness> [--resume <thread>] [options]
       reins bridge codex-app-server -H <harness> [options] exec [codex exec options] [resume <id>] [PROMPT]

Runs in front of an installed harness on stdin/stdout, so any client of the protocol can drive it:
  acp               an Agent Client Protocol agent (v1, or the v2 draft when the client asks for it);
                    each ACP session is a Reins session of that harness
  codex-app-server  a \`codex app-server\` (v2 protocol of Codex ${codexProtocolVersion}, JSON-RPC lines); each
                    Codex thread is a Reins session. Takes what Codex clients launch it with: the
                    \`app-server\` argument, --listen stdio:// (default) | unix:// | unix://PATH |
                    ws://IP:PORT | off (sockets serve several clients; threads are shared), --stdio,
                    --ws-auth capability-token with --ws-token-file PATH or --ws-token-sha256 HEX
                    (ws:// off loopback needs it; signed-bearer-token is refused), --strict-config,
                    -c key=value (model, model_reasoning_effort, approval_policy and sandbox_mode are
                    honoured; Codex-only tuning is ignored; other keys are refused),
                    --enable/--disable <feature> (Codex features: ignored), and --version
  exec              one \`codex exec\` turn (what @openai/codex-sdk runs): --experimental-json (JSONL
                    events) or the answer on stdout; --model, --cd, --output-schema, --image, -o,
                    -c, resume <thread>; the prompt as an argument or on stdin
  --mode blocks     NDJSON blocks on stdin (user, attachment.chunk, interrupt), App Server v2
                    notifications on stdout, one thread on one harness process
stdout carries only protocol messages; diagnostics go to stderr. The bridge ends when stdin closes
(blocks mode: once the turns sent have ended) or on SIGTERM, and closes every harness process first.
With -H codex it starts one app-server as it starts, for the client's first thread.

Options:
  -H, --harness <id>          ${wrapIndented(HARNESS_IDS.join(', '), 76, 30)}
  -m, --model <id>            model every session starts with
      --effort <level>        ${EFFORT_LEVELS.join(' | ')}
      --posture <p>           bypass (default: tools run without asking) | ask (approval requests;
                              codex-app-server: a thread's approvalPolicy chooses, this is the default)
      --binary <path>         the harness binary to run (default: discovery, or REINS_<ID>_BIN)
      --daemon                sessions open in the running \`reins daemon\` of this REINS_HOME, on its
                              warm processes (\`reins daemon --warm\`), not in the bridge; exit 2 when
                              none answers
      --request-timeout <ms>  deadline for every request but a turn (default 60000)
      --resume <thread>       blocks mode: continue this thread (the harness's session id)
  -h, --help                  this help

Exit codes: 0 stopped (stdin closed or a signal), 2 bad usage or the harness is not installed.

Examples:
  reins bridge acp -H codex
  reins bridge acp -H claude-code -m sonnet --posture ask
  reins bridge codex-app-server -H claude-code app-server --listen stdio://
  reins bridge codex-app-server -H pi --listen ws://127.0.0.1:4500 --ws-auth capability-token --ws-token-file ~/.tok
    then: codex --remote ws://127.0.0.1:4500 --remote-auth-token-env TOKEN_VAR
  echo '{"type":"user","text":"hi"}' | reins bridge codex-app-server --mode blocks -H pi
  A Codex client's codex binary: #!/bin/sh + exec reins bridge codex-app-server -H claude-code "$@"
  Zed settings.json: "agent_servers": { "Reins": { "command": "reins", "args": ["bridge", "acp", "-H", "<harness>"] } }`;

/** Codex's signed-bearer-token flags: taken so that the refusal names the mode, not a flag. */
const SIGNED_BEARER_FLAGS = ['ws-shared-secret-file', 'ws-issuer', 'ws-audience', 'ws-max-clock-skew-seconds'] as const;

/** Options only the codex-app-server bridge takes (the ACP bridge refuses them). */
const CODEX_ONLY = [
  'strict-config',
  'version',
  'listen',
  'stdio',
  'config',
  'enable',
  'disable',
  'analytics-default-enabled',
  'mode',
  'resume',
  'ws-auth',
  'ws-token-file',
  'ws-token-sha256',
  ...SIGNED_BEARER_FLAGS,
] as const;

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        harness: { type: 'string', short: 'H' },
        model: { type: 'string', short: 'm' },
        effort: { type: 'string' },
        posture: { type: 'string' },
        binary: { type: 'string' },
        daemon: { type: 'boolean' },
        'request-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        // codex-app-server only (see the help).
        'strict-config': { type: 'boolean' },
        version: { type: 'boolean' },
        listen: { type: 'string' },
        stdio: { type: 'boolean' },
        config: { type: 'string', short: 'c', multiple: true },
        enable: { type: 'string', multiple: true },
        disable: { type: 'string', multiple: true },
        'analytics-default-enabled': { type: 'boolean' },
        mode: { type: 'string' },
        resume: { type: 'string' },
        'ws-auth': { type: 'string' },
        'ws-token-file': { type: 'string' },
        'ws-token-sha256': { type: 'string' },
        'ws-shared-secret-file': { type: 'string' },
        'ws-issuer': { type: 'string' },
        'ws-audience': { type: 'string' },
        'ws-max-clock-skew-seconds': { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
  }
}

function requestTimeoutOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new UsageError(`--request-timeout takes a positive number of milliseconds (got "${value}").`);
  }
  return ms;
}

/** Options that take a value: an `exec` right after one is its value, not the subcommand. */
const VALUE_OPTIONS = new Set([
  '-H',
  '--harness',
  '-m',
  '--model',
  '--effort',
  '--posture',
  '--binary',
  '--request-timeout',
  '--listen',
  '-c',
  '--config',
  '--enable',
  '--disable',
  '--mode',
  '--resume',
  '--ws-auth',
  '--ws-token-file',
  '--ws-token-sha256',
  ...SIGNED_BEARER_FLAGS.map((flag) => `--${flag}`),
]);

/** `… codex-app-server [bridge options] exec [codex exec options]`: exec's part is Codex's grammar, split off first. */
function splitExec(argv: string[]): { bridgeArgs: string[]; execArgs?: string[] } {
  const start = argv.indexOf('codex-app-server');
  for (let index = start + 1; start >= 0 && index < argv.length; index++) {
    if (argv[index] === 'exec' && !VALUE_OPTIONS.has(argv[index - 1] as string)) {
      return { bridgeArgs: argv.slice(0, index), execArgs: argv.slice(index + 1) };
    }
  }
  return { bridgeArgs: argv };
}

export async function bridgeCommand(argv: string[], io: CliIo): Promise<number> {
  try {
    return await runBridge(argv, io);
  } finally {
    // The app-server bin/reins.js started for this bridge (prestartHarness), if no harness took it
    // (a usage error, another binary): it must not outlive the command.
    discardPrestartedChild();
  }
}

async function runBridge(argv: string[], io: CliIo): Promise<number> {
  const { bridgeArgs, execArgs } = splitExec(argv);
  const { values, positionals } = parse(bridgeArgs);
  if (values.help) {
    io.stdout.write(`${bridgeHelp((await loadBridges()).CODEX_PROTOCOL_VERSION)}\n`);
    return EXIT.completed;
  }
  const [name, ...rest] = positionals;
  if (!name) throw new UsageError('Choose the protocol to speak: `reins bridge acp -H <harness>`.');
  if (!(PROTOCOLS as readonly string[]).includes(name)) {
    throw new UsageError(`Unknown bridge protocol "${name}".`, `Protocols: ${PROTOCOLS.join(', ')}.`);
  }
  const protocol = name as Protocol;
  const codexOnly = CODEX_ONLY.find((flag) => values[flag] !== undefined);
  if (protocol === 'acp' && codexOnly) throw new UsageError(`Unknown option '--${codexOnly}'`);
  // Codex clients run `<codex> app-server [options]`: a launcher that runs this bridge passes that on.
  const extra = protocol === 'codex-app-server' && rest[0] === 'app-server' ? rest.slice(1) : rest;
  if (extra.length > 0) {
    throw new UsageError(`bridge ${protocol} takes no further arguments (got "${extra.join(' ')}").`);
  }
  if (values.version) {
    // Codex clients read the binary's version; this names the bridge and the protocol it speaks.
    const { CODEX_PROTOCOL_VERSION } = await loadBridges();
    io.stdout.write(`reins-bridge ${REINS_VERSION} (codex app-server protocol of Codex ${CODEX_PROTOCOL_VERSION})\n`);
    return EXIT.completed;
  }
  const mode = values.mode ?? 'app-server';
  if (!(MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`Unknown mode "${mode}".`, `Modes: ${MODES.join(', ')}.`);
  }
  if (values.resume !== undefined && mode !== 'blocks') {
    throw new UsageError('--resume is for --mode blocks; in app-server mode a client resumes with thread/resume.');
  }
  const flags = harnessFlags(values);
  if (mode === 'blocks' && flags.posture === 'ask') {
    throw new UsageError('--mode blocks has no client to ask for approvals; it runs with --posture bypass.');
  }
  const requestTimeoutMs = requestTimeoutOf(values['request-timeout']);
  const id = flags.harness;
  if (values.daemon && values.binary) {
    throw new UsageError('--binary and --daemon: the daemon runs the harness binary it found; give one.');
  }
  const request: ServeRequest = {
    values,
    protocol,
    mode,
    flags,
    requestTimeoutMs,
    io,
    ...(execArgs ? { execArgs } : {}),
  };
  if (values.daemon) {
    // The session source: the daemon's sessions (docs/architecture/bridges.md, "Sessions in a daemon").
    const { openDaemonHarness } = await import('./bridge-daemon.js');
    const daemon = await openDaemonHarness(id, reinsHome(io.env), requestTimeoutMs);
    try {
      return await serve(daemon.harness, request);
    } finally {
      daemon.close();
    }
  }

  let harness: Harness;
  try {
    harness = await createHarness(id, {
      ...(values.binary ? { binaryPath: values.binary } : {}),
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    });
  } catch (error) {
    throw usageFromReinsError(error, id) ?? error;
  }
  // The harness's process starts now, beside the rest of the start-up (a failure here is the first
  // session's to report, or discovery's below: the bridge still serves). Only where a session waits for
  // it (the manifest's sessionsWaitForWarm): elsewhere a session/new right after initialize starts cold.
  const waits = harnessManifest(id)?.sessionsWaitForWarm === true;
  // Its first spawn takes the app-server bin/reins.js started as Node loaded (same launch settings);
  // one it did not take is ended as soon as the warm one is up.
  const warming = waits && harness.warm ? harness.warm(1).catch(() => {}) : undefined;
  void (warming ?? Promise.resolve()).then(() => {
    if (discardPrestartedChild() === 'taken') {
      io.stderr.write('reins bridge: the app-server started as the bridge loaded serves this harness\n');
    }
  });
  try {
    return await serve(harness, request);
  } finally {
    if (warming) {
      await warming;
      await harness.warm?.(0).catch(() => {});
    }
  }
}

type Flags = ReturnType<typeof harnessFlags>;
interface ServeRequest {
  values: ReturnType<typeof parse>['values'];
  protocol: Protocol;
  mode: string;
  flags: Flags;
  requestTimeoutMs: number | undefined;
  io: CliIo;
  /** `exec …`: one `codex exec` turn instead of a server. */
  execArgs?: string[];
}

async function serve(harness: Harness, request: ServeRequest): Promise<number> {
  const { values, protocol, mode, flags, requestTimeoutMs, io, execArgs } = request;
  const id = flags.harness;
  // Discovery (to fail now, with a hint, rather than on the client's first session/new) and the
  // bridges' module graph, side by side; the flags are judged first, as before either ran.
  const [discovery, bridges] = await Promise.all([
    harness.discover().then(
      (found) => ({ found }),
      (error: unknown) => ({ error }),
    ),
    loadBridges(),
    // The protocol's server too (its module graph is most of the bridge's), beside discovery.
    protocol === 'acp'
      ? import('./bridge-acp.js')
      : /^(ws|unix):\/\//.test(values.listen ?? '')
        ? import('./bridge-codex-socket.js')
        : import('./bridge-codex.js'),
  ]);
  let launch: ReturnType<typeof bridges.launchOptionsOf>;
  let listen: ReturnType<typeof bridges.listenPlanOf>;
  let exec: ReturnType<typeof bridges.execRequestOf> | undefined;
  try {
    exec = execArgs ? bridges.execRequestOf(execArgs) : undefined;
    listen = bridges.listenPlanOf({
      ...(values.listen !== undefined ? { listen: values.listen } : {}),
      ...(values['ws-auth'] !== undefined ? { wsAuth: values['ws-auth'] } : {}),
      ...(values['ws-token-file'] !== undefined ? { wsTokenFile: values['ws-token-file'] } : {}),
      ...(values['ws-token-sha256'] !== undefined ? { wsTokenSha256: values['ws-token-sha256'] } : {}),
      ...signedBearerFlagOf(values),
      env: io.env,
    });
    if (listen.kind !== 'stdio' && mode === 'blocks') throw new UsageError('--mode blocks runs on stdio only.');
    launch = bridges.launchOptionsOf({
      config: [...(values.config ?? []), ...(exec?.config ?? [])],
      features: [...(values.enable ?? []), ...(values.disable ?? [])],
      ...(flags.posture ? { posture: flags.posture } : {}),
    });
  } catch (error) {
    if (error instanceof bridges.ParamsError) throw new UsageError(error.message);
    throw error;
  }
  if (values.model && launch.model && values.model !== launch.model) {
    throw new UsageError(`-m ${values.model} and -c model=${launch.model} name two models; give one.`);
  }
  if ('error' in discovery) throw usageFromReinsError(discovery.error, id) ?? discovery.error;
  if (!discovery.found.found) {
    const missing = new ReinsError('binary_not_found', discovery.found.hint, { harness: id });
    throw usageFromReinsError(missing, id) ?? missing;
  }
  const harnessVersion = discovery.found.binary.version;
  const model = exec?.model ?? values.model ?? launch.model;
  const effort = flags.effort ?? launch.effort;
  const posture = flags.posture ?? launch.posture;

  const log = (message: string) => io.stderr.write(`reins bridge: ${message}\n`);
  if (launch.ignored.length > 0) log(`ignored Codex-only settings: ${launch.ignored.join(', ')}`);

  // What a first turn runs has loaded (the protocol's server with it, above): the compile cache
  // (bin/reins.js) is written now, since Node writes it only at a normal exit and a client may kill
  // its bridge instead.
  (module as { flushCompileCache?: () => void }).flushCompileCache?.();

  // stdout is the protocol channel: anything a library logs goes to stderr instead.
  const restore = routeConsoleToStderr();
  try {
    const defaults = { ...(model ? { model } : {}), ...(effort ? { effort } : {}), ...(posture ? { posture } : {}) };
    const records = bridges.fileRecords(bridges.recordsDir(reinsHome(io.env), protocol, id), log);
    const common = {
      harness,
      stdin: io.stdin,
      stdout: io.stdout,
      defaults,
      records,
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
      log,
      version: REINS_VERSION,
    };
    if (exec) {
      if (exec.ignored.length > 0) log(`exec: ignored Codex-only options: ${exec.ignored.join(', ')}`);
      const { stdin, stdout, ...rest } = common;
      const { runCodexExec } = await import('./bridge-codex.js');
      return await runCodexExec({ ...rest, request: exec, stdin, stdout, stderr: io.stderr, cwd: io.cwd });
    }
    let reason: string;
    if (protocol === 'acp') reason = await (await import('./bridge-acp.js')).serveAcpStdio(common);
    else if (listen.kind === 'off') reason = 'eof';
    else if (listen.kind === 'ws' || listen.kind === 'unix') {
      const { stdin: _stdin, stdout: _stdout, ...rest } = common;
      reason = await (await import('./bridge-codex-socket.js')).serveCodexAppServerSocket({
        ...rest,
        plan: listen,
        cwd: io.cwd,
        ...(harnessVersion ? { harnessVersion } : {}),
        // Codex prints where it listens on stderr; clients and scripts read it there.
        announce: (lines) => io.stderr.write(`${lines.join('\n')}\n`),
      });
    } else if (mode === 'blocks') {
      reason = await (await import('./bridge-codex.js')).serveBlocksStdio({
        ...common,
        cwd: io.cwd,
        ...(values.resume ? { resume: values.resume } : {}),
      });
    } else {
      reason = await (await import('./bridge-codex.js')).serveCodexAppServerStdio({
        ...common,
        cwd: io.cwd,
        ...(harnessVersion ? { harnessVersion } : {}),
      });
    }
    log(`stopped (${reason})`);
  } finally {
    restore();
  }
  return EXIT.completed;
}

function signedBearerFlagOf(values: ReturnType<typeof parse>['values']): { signedBearerFlag?: string } {
  const given = SIGNED_BEARER_FLAGS.find((flag) => values[flag] !== undefined);
  return given ? { signedBearerFlag: `--${given}` } : {};
}

function routeConsoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  return () => Object.assign(console, saved);
}
