// `reins run`: one turn in a new or resumed session, streamed for people or as NDJSON for programs.
// The first Ctrl-C interrupts the turn (cancelled outcome, exit 130); a second one exits at once,
// and the exit hook of the runtime SIGKILLs the harness process group. SIGTERM/SIGHUP: signals.ts.
import { HARNESS_IDS, type ReinsEvent, type Session, type TurnCompletedEvent } from '@reins/core';
import { createHarness } from '@reins/harnesses';
import { type CliIo, EXIT, UsageError, wantsColor } from '../io.js';
import { HumanRenderer } from '../render/human.js';
import { wrapIndented } from '../render/wrap.js';
import { parseSessionArgs, sessionOptions, usageFromReinsError } from '../session-options.js';
import { closeOnTermination } from '../signals.js';

export const RUN_HELP = () => `Usage: reins run -H <harness> [options] [--] <prompt | ->

Runs one turn in a new (or resumed) session of an installed harness.

Options:
  -H, --harness <id>        ${wrapIndented(HARNESS_IDS.join(', '), 74, 28)}
  -C, --cwd <dir>           working directory of the session (default: the current one)
  -m, --model <id>          model to use
      --effort <level>      minimal | low | medium | high | xhigh | max
      --resume <id>         continue the session with this native session id
      --output-schema <f>   JSON Schema file; the reply is validated against it
      --posture <p>         bypass (default: tools run without asking) | ask
      --json                print the normalized events as NDJSON, one per line; an error before
                            or outside the stream is one {"type":"cli.error","code","message",
                            "hint"?,"exitCode"} line (code: a Reins error code)
  -h, --help                this help

Exit codes: 0 completed, 1 failed, 2 bad usage, 130 cancelled (Ctrl-C). SIGTERM or SIGHUP closes the
session (every harness process stops) and exits 143 or 129.

Examples:
  reins run -H codex "What does this repository do?"
  git diff | reins run -H claude-code --json -
  reins run -H codex --output-schema verdict.json "Is the build green?"`;

async function readPrompt(positionals: string[], io: CliIo): Promise<string> {
  if (positionals.length === 1 && positionals[0] === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  }
  return positionals.join(' ');
}

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseSessionArgs(argv);
  if (values.help) {
    io.stdout.write(`${RUN_HELP()}\n`);
    return EXIT.completed;
  }
  const options = await sessionOptions(values, io);
  const prompt = await readPrompt(positionals, io);
  if (prompt.trim() === '')
    throw new UsageError('The prompt is empty.', 'Pass it as an argument, or `-` to read stdin.');

  let session: Session;
  try {
    const harness = await createHarness(options.harness);
    session = await harness.createSession(options.spec);
  } catch (error) {
    throw usageFromReinsError(error, options.harness) ?? error;
  }

  const write = (text: string) => io.stdout.write(text);
  const renderer = options.json
    ? undefined
    : new HumanRenderer(write, { color: wantsColor(io), live: Boolean(io.stdout.isTTY), harness: options.harness });

  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      io.stderr.write('\ninterrupting… (Ctrl-C again to kill the harness)\n');
      session.interrupt().catch(() => {});
    } else {
      process.exit(EXIT.cancelled);
    }
  };
  process.on('SIGINT', onSigint);
  const termination = closeOnTermination(session);

  let terminal: TurnCompletedEvent | undefined;
  try {
    const consumed = (async () => {
      for await (const event of session.events as AsyncIterable<ReinsEvent>) {
        if (renderer) renderer.event(event);
        else write(`${JSON.stringify(event)}\n`);
        if (event.type === 'turn.completed' && !terminal) {
          terminal = event;
          void session.close();
        }
      }
    })();
    await session.send({ text: prompt }, options.outputSchema ? { outputSchema: options.outputSchema } : {});
    await consumed;
  } finally {
    // The handlers stay until the session is closed: a Ctrl-C or SIGTERM during close must still
    // stop the harness (with no listener Node dies without running the runtime's exit hook).
    await session.close().catch(() => {});
    process.off('SIGINT', onSigint);
    termination.dispose();
  }

  if (termination.exitCode !== undefined) return termination.exitCode;

  if (!terminal) return EXIT.failed;
  const finished = terminal as TurnCompletedEvent;
  if (finished.outcome.status === 'completed') return EXIT.completed;
  if (finished.outcome.status === 'cancelled') return EXIT.cancelled;
  return EXIT.failed;
}
