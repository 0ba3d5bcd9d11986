// `reins bridge acp -H <harness>`: runs as an Agent Client Protocol agent on stdin/stdout in front of
// any Reins harness, so any ACP client (Zed, an editor, Reins' own ACP adapter) can drive it. stdout
// carries only protocol frames; everything else, console output included, goes to stderr.
import { parseArgs } from 'node:util';
import { serveAcpStdio } from '@reins/bridges';
import { EFFORT_LEVELS, type Effort, HARNESS_IDS, isHarnessId, POSTURES, type Posture, ReinsError } from '@reins/core';
import { createHarness } from '@reins/harnesses';
import { type CliIo, EXIT, UsageError } from '../io.js';
import { usageFromReinsError } from '../session-options.js';
import { REINS_VERSION } from '../version.js';

const PROTOCOLS = ['acp'] as const;

export const BRIDGE_HELP = `Usage: reins bridge acp -H <harness> [options]

Runs as an Agent Client Protocol agent (protocol version 1) on stdin/stdout in front of an installed
harness, so any ACP client can drive it: each ACP session is a Reins session of that harness. stdout
carries only ACP messages; diagnostics go to stderr. The bridge ends when stdin closes or on SIGTERM,
and closes every harness process first.

Options:
  -H, --harness <id>          ${HARNESS_IDS.join(', ')}
  -m, --model <id>            model every session starts with
      --effort <level>        ${EFFORT_LEVELS.join(' | ')}
      --posture <p>           bypass (default: tools run without asking) | ask (session/request_permission)
      --binary <path>         the harness binary to run (default: discovery, or REINS_<ID>_BIN)
      --request-timeout <ms>  deadline for every request but a turn (default 60000)
  -h, --help                  this help

Exit codes: 0 stopped (stdin closed or a signal), 2 bad usage or the harness is not installed.

Examples:
  reins bridge acp -H codex
  reins bridge acp -H claude-code -m sonnet --posture ask
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
  const [protocol, ...extra] = positionals;
  if (!protocol) throw new UsageError('Choose the protocol to speak: `reins bridge acp -H <harness>`.');
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new UsageError(`Unknown bridge protocol "${protocol}".`, `Protocols: ${PROTOCOLS.join(', ')}.`);
  }
  if (extra.length > 0)
    throw new UsageError(`bridge ${protocol} takes no further arguments (got "${extra.join(' ')}").`);
  const id = values.harness;
  if (!id) throw new UsageError('Choose a harness with -H <harness>.', `Known harnesses: ${HARNESS_IDS.join(', ')}.`);
  if (!isHarnessId(id)) throw new UsageError(`Unknown harness "${id}".`, `Known harnesses: ${HARNESS_IDS.join(', ')}.`);
  const effort = values.effort;
  if (effort !== undefined && !(EFFORT_LEVELS as readonly string[]).includes(effort)) {
    throw new UsageError(`Unknown effort "${effort}".`, `Use one of: ${EFFORT_LEVELS.join(', ')}.`);
  }
  const posture = values.posture;
  if (posture !== undefined && !(POSTURES as readonly string[]).includes(posture)) {
    throw new UsageError(`Unknown posture "${posture}".`, `Use one of: ${POSTURES.join(', ')}.`);
  }
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
  try {
    harness = await createHarness(id, {
      ...(values.binary ? { binaryPath: values.binary } : {}),
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    });
    // Fail now, with a hint, rather than on the client's first session/new.
    const found = await harness.discover();
    if (!found.found) throw new ReinsError('binary_not_found', found.hint, { harness: id });
  } catch (error) {
    throw usageFromReinsError(error, id) ?? error;
  }

  // stdout is the protocol channel: anything a library logs goes to stderr instead.
  const restore = routeConsoleToStderr();
  try {
    const reason = await serveAcpStdio({
      harness,
      stdin: io.stdin,
      stdout: io.stdout,
      defaults: {
        ...(values.model ? { model: values.model } : {}),
        ...(effort ? { effort: effort as Effort } : {}),
        ...(posture ? { posture: posture as Posture } : {}),
      },
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
      log,
      version: REINS_VERSION,
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
