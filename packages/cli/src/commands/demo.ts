// `reins demo`: the embedded default. Starts the scripted model server and runs the same short
// coding session (a question, a shell command, a file edit) through every pinned harness CLI that
// is installed, hermetically, then shows the normalized streams side by side. No account, no network.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HarnessId, ReinsError, type ReinsEvent } from '@reins/core';
import {
  type ConformanceSetup,
  type ConformanceTarget,
  conformanceTarget,
  conformanceTargetIds,
  harnessBinary,
  reply,
  SessionRecorder,
  startModelServer,
} from '@reins/testkit';
import { parseFlags } from '../args.js';
import { runHermetically } from '../hermetic.js';
import { type CliIo, EXIT, UsageError, wantsColor } from '../io.js';
import { makeStyle, type Style } from '../render/style.js';
import { cleanUpOnSignals } from '../signals.js';
import { cleaningUpOnSignals } from './conformance-cleanup.js';

export const DEMO_HELP = `Usage: reins demo [-H <id>[,<id>...]] [--json]

Runs one short scripted coding session (a question, a shell command, a file edit) through each pinned
harness CLI installed by \`npm run setup:harnesses\`, against Reins' embedded scripted model server,
inside a loopback-only network namespace, and shows the normalized event streams side by side.
No account and no network are needed.

Options:
  -H, --harness <ids>   only these harnesses (comma-separated)
      --json            print every normalized event as NDJSON instead (a failed lane's too);
                        why a lane failed goes to stderr
  -h, --help            this help

Exit code: 0 when every lane passed, 1 when any failed (each reason is printed in full), 2 for bad usage.`;

const NOTE = '# Notes\n\nWritten by the Reins demo.\n';
/** Deadline of each turn and each wait on a lane's session (real CLIs on a loaded 2-core machine are slow). */
const TURN_TIMEOUT_MS = 120_000;

interface Lane {
  id: HarnessId;
  version?: string;
  /** Every normalized event the lane's session emitted, also when the lane failed part way. */
  events: ReinsEvent[];
  /** The lane's column in the side-by-side view. */
  lines: string[];
  /** Why the lane failed, in full; empty when it passed. */
  failures: string[];
}

/** One lane to run: a harness target (the pinned CLI's conformance target) and the version it shows. */
export interface DemoLane {
  target: ConformanceTarget;
  version?: string;
}

function installed(id: HarnessId): { ok: true; version: string } | { ok: false } {
  try {
    return { ok: true, version: harnessBinary(id as Parameters<typeof harnessBinary>[0]).version };
  } catch {
    return { ok: false };
  }
}

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    options: {
      harness: { type: 'string', short: 'H' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    io.stdout.write(`${DEMO_HELP}\n`);
    return EXIT.completed;
  }
  if (positionals.length > 0) throw new UsageError(`demo takes no arguments (got "${positionals.join(' ')}").`);
  const known = conformanceTargetIds();
  const wanted = values.harness ? values.harness.split(',').map((id) => id.trim()) : known;
  const unknown = wanted.filter((id) => !known.includes(id as HarnessId));
  if (unknown.length > 0) {
    throw new UsageError(`The demo has no pinned CLI for ${unknown.join(', ')}.`, `It can run: ${known.join(', ')}.`);
  }

  // Real CLIs run only inside a loopback-only namespace: re-run this command inside one.
  const outside = await runHermetically('demo', argv, io);
  if (outside !== undefined) return outside;

  const lanes: DemoLane[] = [];
  const missing: string[] = [];
  for (const id of wanted as HarnessId[]) {
    const pinned = installed(id);
    if (pinned.ok) lanes.push({ target: conformanceTarget(id), version: pinned.version });
    else missing.push(id);
  }
  if (lanes.length === 0) {
    io.stderr.write(
      'No pinned harness CLI is installed for the demo. Run `npm run setup:harnesses` in the Reins checkout\n' +
        '(it installs the exact CLI versions Reins is tested with into harness-clis/), then `reins demo` again.\n',
    );
    return EXIT.usage;
  }
  if (missing.length > 0) {
    const note = `Not installed, left out: ${missing.join(', ')} (\`npm run setup:harnesses\` installs them).\n`;
    (values.json ? io.stderr : io.stdout).write(note);
  }
  return runDemo(lanes, io, { json: values.json ?? false });
}

/**
 * Runs the lanes (two at a time) and reports them: NDJSON events of every lane, a failed lane's too, with
 * why a lane failed on stderr; or the side-by-side view with every failure in full below it. 1 when any failed.
 * SIGINT, SIGTERM or SIGHUP closes every lane's session, removes its folder and exits 130, 143 or 129.
 */
export async function runDemo(
  lanes: DemoLane[],
  io: CliIo,
  options: { json: boolean; turnTimeoutMs?: number },
): Promise<number> {
  const style = makeStyle(wantsColor(io));
  const ids = lanes.map((lane) => lane.target.id);
  if (!options.json)
    io.stdout.write(style.dim(`Scripted session through ${ids.join(', ')} (hermetic, scripted model)…\n`));
  const done: Lane[] = [];
  const cleanups = cleanUpOnSignals();
  try {
    // Two at a time: every harness is a real CLI process and the machine may have two cores.
    for (let index = 0; index < lanes.length; index += 2) {
      const batch = await Promise.all(
        lanes
          .slice(index, index + 2)
          .map((lane) =>
            runLane(
              { ...lane, target: cleaningUpOnSignals(lane.target, cleanups) },
              style,
              options.turnTimeoutMs ?? TURN_TIMEOUT_MS,
            ),
          ),
      );
      if (options.json) {
        for (const lane of batch) {
          for (const event of lane.events) io.stdout.write(`${JSON.stringify(event)}\n`);
          for (const failure of lane.failures) io.stderr.write(`reins demo: ${lane.id} failed: ${failure}\n`);
        }
      }
      done.push(...batch);
    }
  } finally {
    await cleanups.dispose();
  }
  if (!options.json) io.stdout.write(sideBySide(done, style, Number(io.env.COLUMNS) || 120));
  return done.every((lane) => lane.failures.length === 0) ? EXIT.completed : EXIT.failed;
}

/** One lane end to end; never throws: whatever went wrong is in `failures`, with the events seen until then. */
async function runLane({ target, version }: DemoLane, style: Style, turnTimeoutMs: number): Promise<Lane> {
  const lane: Lane = { id: target.id, events: [], lines: [], failures: [] };
  if (version) lane.version = version;
  const server = await startModelServer();
  // The target's folder, with the session workspace inside it (as the conformance suite lays it out).
  const workdir = await mkdtemp(join(tmpdir(), `reins-demo-${target.id}-`));
  const workspace = join(workdir, 'workspace');
  let setup: ConformanceSetup | undefined;
  let recorder: SessionRecorder | undefined;
  let closed = false;
  try {
    await mkdir(workspace);
    setup = await target.setup(server, workdir);
    const session = await setup.harness.createSession({ cwd: workspace, model: setup.models.primary });
    recorder = new SessionRecorder(session, turnTimeoutMs);
    const turns: [string, () => void][] = [
      [
        'What is in this workspace?',
        () => server.enqueue(reply().reasoning('Let me look.').text('An empty demo workspace.')),
      ],
      ['Run the tests.', () => server.enqueue(reply().shell('echo "3 passed"'), reply().text('All 3 tests pass.'))],
      [
        'Write NOTES.md.',
        () => server.enqueue(reply().writeFile(join(workspace, 'NOTES.md'), NOTE), reply().text('Wrote NOTES.md.')),
      ],
    ];
    for (const [prompt, script] of turns) {
      script();
      const terminal = await recorder.turn(prompt, {}, turnTimeoutMs);
      const outcome = terminal.outcome;
      if (outcome.status === 'failed')
        lane.failures.push(`the turn "${prompt}" failed: [${outcome.error.code}] ${outcome.error.message}`);
      else if (outcome.status !== 'completed') lane.failures.push(`the turn "${prompt}" ended ${outcome.status}`);
    }
    closed = true;
    await recorder.close();
    const notes = join(workspace, 'NOTES.md');
    if (!existsSync(notes) || !readFileSync(notes, 'utf8').includes('Reins demo'))
      lane.failures.push(`NOTES.md was not written to the session's workspace (${workspace})`);
  } catch (error) {
    lane.failures.push(describe(error));
  } finally {
    // A lane that failed part way still ends its session (and the harness's processes) before it reports.
    if (recorder && !closed) await recorder.session.close().catch(() => {});
    await setup?.dispose?.().catch(() => {});
    await server.close();
    await rm(workdir, { recursive: true, force: true }).catch(() => {});
  }
  lane.events = recorder?.events ?? [];
  for (const event of lane.events) {
    const line = summarize(event, style);
    if (line) lane.lines.push(line);
  }
  if (lane.failures.length === 0) lane.lines.push(style.green('NOTES.md is on disk'));
  else lane.lines.push(...lane.failures.map((failure) => style.red(`failed: ${failure}`)));
  return lane;
}

function describe(error: unknown): string {
  if (ReinsError.isInstance(error)) return `[${error.code}] ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** One short line per event worth showing; deltas are folded into their items. */
function summarize(event: ReinsEvent, style: Style): string | undefined {
  switch (event.type) {
    case 'session.started':
      return style.dim(`session.started ${event.harnessVersion ?? ''}`.trim());
    case 'turn.started':
      return style.bold(`▶ ${event.input.text}`);
    case 'item.completed': {
      const item = event.item;
      if (item.kind === 'agent_message') return `  “${item.text.trim()}”`;
      if (item.kind === 'reasoning') return style.dim(`  thinking: ${item.text.trim() || '…'}`);
      if (item.kind === 'tool_call') {
        const exit = item.exitCode !== undefined ? ` exit ${item.exitCode}` : '';
        const status = item.status === 'completed' ? style.green(item.status) : style.red(item.status);
        return `  ${item.tool.kind} ${item.tool.name} ${status}${exit}`;
      }
      return undefined;
    }
    case 'turn.completed': {
      const tokens = event.usage?.turn;
      const usage = tokens?.input !== undefined ? style.dim(` in ${tokens.input} out ${tokens.output ?? '?'}`) : '';
      const outcome =
        event.outcome.status === 'completed' ? style.green('✓ completed') : style.red(`✗ ${event.outcome.status}`);
      return `  ${outcome}${usage}`;
    }
    default:
      return undefined;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips the ANSI colors to measure width
const ANSI = /\x1b\[[0-9;]*m/g;
function fit(text: string, width: number): string {
  const plain = text.replace(ANSI, '');
  if (plain.length <= width) return text + ' '.repeat(width - plain.length);
  return `${plain.slice(0, width - 1)}…`;
}

/** Lanes in bands of as many columns as the terminal holds (at least 36 characters each). */
function sideBySide(lanes: Lane[], style: Style, columns: number): string {
  const perBand = Math.max(1, Math.min(lanes.length, Math.floor(columns / 38)));
  const width = Math.floor(columns / perBand) - 2;
  let out = '';
  for (let start = 0; start < lanes.length; start += perBand) {
    const band = lanes.slice(start, start + perBand);
    const headers = band.map((lane) =>
      fit(style.bold(`${lane.failures.length === 0 ? '●' : '○'} ${lane.id} ${lane.version ?? ''}`), width),
    );
    out += `\n${headers.join('  ')}\n${band.map(() => '─'.repeat(width)).join('  ')}\n`;
    const rows = Math.max(...band.map((lane) => lane.lines.length));
    for (let row = 0; row < rows; row++) {
      out += `${band.map((lane) => fit(lane.lines[row] ?? '', width)).join('  ')}`.trimEnd();
      out += '\n';
    }
  }
  const failed = lanes.filter((lane) => lane.failures.length > 0);
  if (failed.length === 0) {
    out += `\n${style.green(`All ${lanes.length} harness${lanes.length === 1 ? '' : 'es'} gave the same normalized stream.`)}\n`;
  } else {
    // The columns cut a reason to their width: here it is in full.
    out += `\n${style.red(`Failed: ${failed.map((lane) => lane.id).join(', ')}`)}\n`;
    for (const lane of failed)
      for (const failure of lane.failures)
        out += `${style.bold(`${lane.id} ${lane.version ?? ''}`.trim())}: ${failure}\n`;
  }
  return out.replace(/[ \t]+\n/g, '\n');
}
