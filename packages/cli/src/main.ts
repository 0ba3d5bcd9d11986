// Command dispatch and the one place errors become exit codes and messages.
import type { ReinsError } from '@reins/core';
import { usageFromParseError } from './args.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import { REINS_VERSION } from './version.js';

type Command = (argv: string[], io: CliIo) => Promise<number>;

// Commands load on demand: `reins run` need not load the demo's model server or the doctor's probes.
const COMMANDS: Record<string, { run: Command; summary: string }> = {
  run: {
    run: async (argv, io) => (await import('./commands/run.js')).runCommand(argv, io),
    summary: 'run one turn and print the result (or --json events)',
  },
  chat: {
    run: async (argv, io) => (await import('./commands/chat.js')).chatCommand(argv, io),
    summary: 'an interactive session with /model, /effort, /steer, /interrupt',
  },
  demo: {
    run: async (argv, io) => (await import('./commands/demo.js')).demoCommand(argv, io),
    summary: 'a scripted session through every pinned harness CLI, side by side (no account)',
  },
  conformance: {
    run: async (argv, io) => (await import('./commands/conformance.js')).conformanceCommand(argv, io),
    summary: 'check an installed harness against the conformance suite, hermetically, and record evidence',
  },
  doctor: {
    run: async (argv, io) => (await import('./commands/doctor.js')).doctorCommand(argv, io),
    summary: 'which harnesses are installed, healthy, logged in, and what they can do',
  },
  sessions: {
    run: async (argv, io) => (await import('./commands/sessions.js')).sessionsCommand(argv, io),
    summary: "the daemon's sessions: list them, replay one (show ID), follow a live one (attach ID)",
  },
  daemon: {
    run: async (argv, io) => (await import('./commands/daemon.js')).daemonCommand(argv, io),
    summary: 'the local daemon: drive any harness over a WebSocket (web UIs, bots, other programs)',
  },
  console: {
    run: async (argv, io) => (await import('./commands/console.js')).consoleCommand(argv, io),
    summary: 'open the web console of the daemon (starting one if none runs); --demo: no account needed',
  },
  bridge: {
    run: async (argv, io) => (await import('./commands/bridge.js')).bridgeCommand(argv, io),
    summary: 'speak ACP or the Codex app-server protocol on stdin/stdout in front of any harness',
  },
  'acp-check': {
    run: async (argv, io) => (await import('./commands/acp-check.js')).acpCheckCommand(argv, io),
    summary: 'check any ACP agent against the ACP spec and schema: a requirement table and a verdict',
  },
};

export const MAIN_HELP = () => `Usage: reins <command> [options]

Drive the coding agents you have installed through one session model and one event stream.

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(12)}${command.summary}`)
  .join('\n')}

Options:
  -h, --help      help for reins or a command (reins run --help)
  -v, --version   print the version

Examples:
  reins run -H codex "Summarize the open TODOs"
  reins chat -H claude-code -m sonnet`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  // `reins help run` is `reins run --help`.
  if (name === 'help' && rest[0] !== undefined && COMMANDS[rest[0]]) return main([rest[0], '--help'], io);
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout.write(`${MAIN_HELP()}\n`);
    return name === undefined ? EXIT.usage : EXIT.completed;
  }
  if (name === '-v' || name === '--version') {
    io.stdout.write(`reins ${REINS_VERSION}\n`);
    return EXIT.completed;
  }
  // Own names only: "constructor" or "toString" is an unknown command, not an inherited member.
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.stderr.write(`reins: unknown command "${name}". Commands: ${Object.keys(COMMANDS).join(', ')}.\n`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    // @reins/core (its schemas) loads here, not at start: `reins --version` and `--help` need none of it.
    const reinsError = (await import('@reins/core')).ReinsError;
    const code = report(error, name, io, reinsError);
    if (JSON_COMMANDS.has(name) && wantsJson(rest)) {
      io.stdout.write(`${JSON.stringify(jsonError(error, code, reinsError))}\n`);
    }
    return code;
  }
}

/** The commands with --json output: a program reading it also gets the error that ended the command. */
const JSON_COMMANDS = new Set(['run', 'demo', 'conformance', 'doctor']);

function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * The one JSON line an error prints on stdout under --json (also when the flags did not parse):
 * a stable ReinsError code, the sentence and hint the human output has, and the exit code.
 */
export function jsonError(
  thrown: unknown,
  exitCode: number,
  reinsError: typeof ReinsError,
): { type: 'cli.error'; code: string; message: string; hint?: string; exitCode: number } {
  const error = usageFromParseError(thrown) ?? thrown;
  if (error instanceof UsageError) {
    return {
      type: 'cli.error',
      code: error.code,
      message: error.message,
      ...(error.hint ? { hint: error.hint } : {}),
      exitCode,
    };
  }
  if (reinsError.isInstance(error)) return { type: 'cli.error', code: error.code, message: error.message, exitCode };
  return {
    type: 'cli.error',
    code: 'unexpected',
    message: error instanceof Error ? error.message : String(error),
    exitCode,
  };
}

function report(thrown: unknown, command: string, io: CliIo, reinsError: typeof ReinsError): number {
  const error = usageFromParseError(thrown) ?? thrown;
  if (error instanceof UsageError) {
    io.stderr.write(`reins ${command}: ${error.message}\n`);
    if (error.hint) io.stderr.write(`${error.hint}\n`);
    io.stderr.write(`See \`reins ${command} --help\`.\n`);
    return EXIT.usage;
  }
  if (reinsError.isInstance(error)) {
    io.stderr.write(`reins ${command}: ${error.code}: ${error.message}\n`);
    return error.code === 'invalid_input' ? EXIT.usage : EXIT.failed;
  }
  io.stderr.write(
    `reins ${command}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return EXIT.failed;
}
