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
import { tokenCounts } from '../render/human.js';
import { makeStyle, type Style } from '../render/style.js';
import { cleanUpOnSignals } from '../signals.js';
import { cleaningUpOnSignals } from './conformance-cleanup.js';
import { compareLanes, type DemoScript, type LaneComparison } from './demo-compare.js';

export const DEMO_HELP = `Usage: reins demo [-H <id>[,<id>...]] [--json]

Runs one short scripted coding session (a question, a shell command, a file edit) through each pinned
harness CLI installed by \`npm run setup\`, against Reins' embedded scripted model server,
inside a loopback-only network namespace, and shows the normalized event streams side by side.
No account and no network are needed.

Options:
  -H, --harness <ids>   only these harnesses (comma-separated)
      --json            print every normalized event as NDJSON instead (a failed lane's too);
                        why a lane failed goes to stderr
  -h, --help            this help

Exit code: 0 when every lane passed, 1 when any failed (each reason is printed in full), 2 for bad usage.`;

const NOTE = '# Notes\n\nWritten by the Reins demo.\n';
/** What every lane is scripted to do, and so what the demo checks each lane's stream against. */
const SCRIPT: DemoScript = {
  replies: ['An empty demo workspace.', 'All 3 tests pass.', 'Wrote NOTES.md.'],
  commandOutput: '3 passed',
  fileName: 'NOTES.md',
  fileContent: NOTE,
};
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
  /** NOTES.md as the session left it, undefined when it was not written. */
  file?: string;
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
      'No pinned harness CLI is installed for the demo. Run `npm run setup` in the Reins checkout\n' +
        '(it installs the exact CLI versions Reins is tested with into harness-clis/), then `reins demo` again.\n',
    );
    return EXIT.usage;
  }
  if (missing.length > 0) {
    const note = `Not installed, left out: ${missing.join(', ')} (\`npm run setup\` installs them).\n`;
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
    // A line as each lane starts and ends: real CLIs take a while, and silence reads as a hang.
    const progress = (line: string) => {
      if (!options.json) io.stdout.write(style.dim(`  ${line}\n`));
    };
    for (let index = 0; index < lanes.length; index += 2) {
      const pair = lanes.slice(index, index + 2);
      progress(
        `running ${pair.map((lane) => lane.target.id).join(' and ')} (${index + pair.length} of ${lanes.length})…`,
      );
      const batch = await Promise.all(
        pair.map(async (lane) => {
          const started = Date.now();
          const target = cleaningUpOnSignals(lane.target, cleanups);
          const done = await runLane({ ...lane, target }, style, options.turnTimeoutMs ?? TURN_TIMEOUT_MS);
          const seconds = Math.round((Date.now() - started) / 1000);
          progress(`${done.id} ${done.failures.length === 0 ? 'finished' : 'failed'} after ${seconds} s`);
          return done;
        }),
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
  const comparisons = compareLanes(
    done.map((lane) => ({ id: lane.id, events: lane.events, file: lane.file })),
    SCRIPT,
  );
  if (options.json) {
    for (const { id, differed } of comparisons)
      for (const difference of differed) io.stderr.write(`reins demo: ${id} differed: ${difference}\n`);
  } else {
    io.stdout.write(sideBySide(done, comparisons, style, Number(io.env.COLUMNS) || 120));
  }
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
        () =>
          server.enqueue(
            reply()
              .reasoning('Let me look.')
              .text(SCRIPT.replies[0] as string),
          ),
      ],
      [
        'Run the tests.',
        () =>
          server.enqueue(reply().shell(`echo "${SCRIPT.commandOutput}"`), reply().text(SCRIPT.replies[1] as string)),
      ],
      [
        'Write NOTES.md.',
        () =>
          server.enqueue(
            reply().writeFile(join(workspace, SCRIPT.fileName), NOTE),
            reply().text(SCRIPT.replies[2] as string),
          ),
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
    const notes = join(workspace, SCRIPT.fileName);
    if (existsSync(notes)) lane.file = readFileSync(notes, 'utf8');
    else lane.failures.push(`NOTES.md was not written to the session's workspace (${workspace})`);
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
  lane.lines.push(...lane.failures.map((failure) => style.red(`failed: ${failure}`)));
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
      const counts = tokenCounts(tokens);
      const usage = counts ? style.dim(` ${counts}`) : '';
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
function sideBySide(lanes: Lane[], comparisons: LaneComparison[], style: Style, columns: number): string {
  const perBand = Math.max(1, Math.min(lanes.length, Math.floor(columns / 38)));
  const width = Math.floor(columns / perBand) - 2;
  let out = '';
  for (let start = 0; start < lanes.length; start += perBand) {
    const band = lanes.slice(start, start + perBand);
    const headers = band.map((lane) =>
      fit(style.bold(`${lane.failures.length === 0 ? '●' : '○'} ${lane.id} ${lane.version ?? ''}`), width),
    );
    out += `\n${headers.join('  ')}\n${band.map(() => '─'.repeat(width)).join('  ')}\n`;
    const columnsOf = band.map((lane, index) => [...lane.lines, ...checkLines(comparisons[start + index], style)]);
    const rows = Math.max(...columnsOf.map((lines) => lines.length));
    for (let row = 0; row < rows; row++) {
      out += `${columnsOf.map((lines) => fit(lines[row] ?? '', width)).join('  ')}`.trimEnd();
      out += '\n';
    }
  }
  out += verdict(lanes, comparisons, style);
  const failed = lanes.filter((lane) => lane.failures.length > 0);
  if (failed.length > 0) {
    // The columns cut a reason to their width: here it is in full.
    out += `\n${style.red(`Failed: ${failed.map((lane) => lane.id).join(', ')}`)}\n`;
    for (const lane of failed)
      for (const failure of lane.failures)
        out += `${style.bold(`${lane.id} ${lane.version ?? ''}`.trim())}: ${failure}\n`;
  }
  return out.replace(/[ \t]+\n/g, '\n');
}

/** A lane's checks under its column: what matched, and each check that differed (in full below the columns). */
function checkLines(comparison: LaneComparison | undefined, style: Style): string[] {
  if (!comparison) return [];
  const matched = comparison.matched.map((check) => style.green(`✓ ${check}`));
  return [...matched, ...comparison.differed.map((difference) => style.yellow(`≠ ${difference.split(':')[0]}`))];
}

/** The one line that sums up the checks, then every difference in full. */
function verdict(lanes: Lane[], comparisons: LaneComparison[], style: Style): string {
  const differing = comparisons.filter((comparison) => comparison.differed.length > 0);
  const checked = [
    ...new Set(
      comparisons.flatMap((comparison) => [...comparison.matched, ...comparison.differed.map((d) => d.split(':')[0])]),
    ),
  ];
  if (differing.length === 0 && lanes.every((lane) => lane.failures.length === 0)) {
    const noun = lanes.length === 1 ? '1 harness gave the scripted' : `All ${lanes.length} harnesses gave the same`;
    return `\n${style.green(`${noun} normalized stream (checked: ${checked.join(', ')}).`)}\n`;
  }
  let out = `\n${style.yellow(`Matched on every check: ${lanes.length - differing.length} of ${lanes.length} lanes.`)}`;
  if (differing.length > 0) out += ` ${style.yellow(`Differed: ${differing.map((lane) => lane.id).join(', ')}`)}`;
  out += '\n';
  for (const [index, { id, differed }] of comparisons.entries()) {
    const version = lanes[index]?.version ?? '';
    for (const difference of differed) out += `${style.bold(`${id} ${version}`.trim())} differed: ${difference}\n`;
  }
  return out;
}
