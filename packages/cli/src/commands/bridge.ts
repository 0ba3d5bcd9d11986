// `reins bridge acp -H <harness>`: runs as an Agent Client Protocol agent on stdin/stdout in front of
// any Reins harness, so any ACP client (Zed, an editor, Reins' own ACP adapter) can drive it.
// `reins bridge codex-app-server -H <harness>`: the same, speaking `codex app-server` (v2), for any
// Codex app-server client (Codex SDKs, IDE extensions, Reins' own Codex adapter). stdout carries only
// protocol frames; everything else, console output included, goes to stderr.
import { parseArgs } from 'node:util';
import { CODEX_PROTOCOL_VERSION, serveAcpStdio, serveCodexAppServerStdio } from '@reins/bridges';
import { EFFORT_LEVELS, HARNESS_IDS, ReinsError } from '@reins/core';
import { createHarness } from '@reins/harnesses';
import { type CliIo, EXIT, UsageError } from '../io.js';
import { harnessFlags, usageFromReinsError } from '../session-options.js';
import { REINS_VERSION } from '../version.js';

const PROTOCOLS = ['acp', 'codex-app-server'] as const;
type Protocol = (typeof PROTOCOLS)[number];

export const BRIDGE_HELP = `Usage: reins bridge acp -H <harness> [options]
       reins bridge codex-app-server -H <harness> [options]

Runs in front of an installed harness on stdin/stdout, so any client of the protocol can drive it:
  acp               an Agent Client Protocol agent (protocol version 1); each ACP session is a Reins
                    session of that harness
  codex-app-server  a \`codex app-server\` (v2 protocol of Codex ${CODEX_PROTOCOL_VERSION}, JSON-RPC lines); each
                    Codex thread is a Reins session. Accepts the \`app-server\` argument and the
                    --strict-config flag Codex clients launch it with (the bridge has no config file),
                    and --version
stdout carries only protocol messages; diagnostics go to stderr. The bridge ends when stdin closes or
on SIGTERM, and closes every harness process first.

Options:
  -H, --harness <id>          ${HARNESS_IDS.join(', ')}
  -m, --model <id>            model every session starts with
      --effort <level>        ${EFFORT_LEVELS.join(' | ')}
      --posture <p>           bypass (default: tools run without asking) | ask (session/request_permission;
                              codex-app-server: a thread's approvalPolicy chooses, this is the default)
      --binary <path>         the harness binary to run (default: discovery, or REINS_<ID>_BIN)
      --request-timeout <ms>  deadline for every request but a turn (default 60000)
  -h, --help                  this help

Exit codes: 0 stopped (stdin closed or a signal), 2 bad usage or the harness is not installed.

Examples:
  reins bridge acp -H codex
  reins bridge acp -H claude-code -m sonnet --posture ask
  reins bridge codex-app-server -H claude-code     (a Codex client's codex binary: a script that runs this)
  Zed settings.json: "agent_servers": { "Reins Codex": { "command": "reins", "args": ["bridge", "acp", "-H", "codex"] } }`;

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
        'request-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        // codex-app-server only (see the help).
        'strict-config': { type: 'boolean' },
        version: { type: 'boolean' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
  }
}

export async function bridgeCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout.write(`${BRIDGE_HELP}\n`);
    return EXIT.completed;
  }
  const [name, ...rest] = positionals;
  if (!name) throw new UsageError('Choose the protocol to speak: `reins bridge acp -H <harness>`.');
  if (!(PROTOCOLS as readonly string[]).includes(name)) {
    throw new UsageError(`Unknown bridge protocol "${name}".`, `Protocols: ${PROTOCOLS.join(', ')}.`);
  }
  const protocol = name as Protocol;
  const codexOnly = (['strict-config', 'version'] as const).find((flag) => values[flag] !== undefined);
  if (protocol === 'acp' && codexOnly) throw new UsageError(`Unknown option '--${codexOnly}'`);
  // Codex clients run `<codex> app-server [--strict-config]`: a launcher that runs this bridge passes that on.
  const extra = protocol === 'codex-app-server' && rest[0] === 'app-server' ? rest.slice(1) : rest;
  if (extra.length > 0)
    throw new UsageError(`bridge ${protocol} takes no further arguments (got "${extra.join(' ')}").`);
  if (values.version) {
    // Codex clients read the binary's version; this names the bridge, not a Codex release.
    io.stdout.write(`reins-bridge ${REINS_VERSION} (codex app-server protocol of Codex ${CODEX_PROTOCOL_VERSION})\n`);
    return EXIT.completed;
  }
  const { harness: id, effort, posture } = harnessFlags(values);
  let requestTimeoutMs: number | undefined;
  if (values['request-timeout'] !== undefined) {
    requestTimeoutMs = Number(values['request-timeout']);
    if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs <= 0) {
      throw new UsageError(
        `--request-timeout takes a positive number of milliseconds (got "${values['request-timeout']}").`,
      );
    }
  }

  const log = (message: string) => io.stderr.write(`reins bridge: ${message}\n`);
  let harness: Awaited<ReturnType<typeof createHarness>>;
  let harnessVersion: string | undefined;
  try {
    harness = await createHarness(id, {
      ...(values.binary ? { binaryPath: values.binary } : {}),
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    });
    // Fail now, with a hint, rather than on the client's first session/new.
    const found = await harness.discover();
    if (!found.found) throw new ReinsError('binary_not_found', found.hint, { harness: id });
    harnessVersion = found.binary.version;
  } catch (error) {
    throw usageFromReinsError(error, id) ?? error;
  }

  // stdout is the protocol channel: anything a library logs goes to stderr instead.
  const restore = routeConsoleToStderr();
  try {
    const common = {
      harness,
      stdin: io.stdin,
      stdout: io.stdout,
      defaults: {
        ...(values.model ? { model: values.model } : {}),
        ...(effort ? { effort } : {}),
        ...(posture ? { posture } : {}),
      },
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
      log,
      version: REINS_VERSION,
    };
    const reason =
      protocol === 'acp'
        ? await serveAcpStdio(common)
        : await serveCodexAppServerStdio({
            ...common,
            cwd: io.cwd,
            ...(harnessVersion ? { harnessVersion } : {}),
          });
    log(`stopped (${reason})`);
  } finally {
    restore();
  }
  return EXIT.completed;
}

function routeConsoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  return () => Object.assign(console, saved);
}
