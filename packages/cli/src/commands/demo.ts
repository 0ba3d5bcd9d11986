// `reins demo`: the embedded default. Starts the scripted model server and runs the same short
// coding session (a question, a shell command, a file edit) through every pinned harness CLI that
// is installed, hermetically, then shows the normalized streams side by side. No account, no network.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { HarnessId, ReinsEvent } from '@reins/core';
import {
  conformanceTarget,
  conformanceTargetIds,
  harnessBinary,
  reply,
  SessionRecorder,
  startModelServer,
} from '@reins/testkit';
import { runHermetically } from '../hermetic.js';
import { type CliIo, EXIT, UsageError, wantsColor } from '../io.js';
import { makeStyle, type Style } from '../render/style.js';

export const DEMO_HELP = `Usage: reins demo [-H <id>[,<id>...]] [--json]

Runs one short scripted coding session (a question, a shell command, a file edit) through each pinned
harness CLI installed by \`npm run setup:harnesses\`, against Reins' embedded scripted model server,
inside a loopback-only network namespace, and shows the normalized event streams side by side.
No account and no network are needed.

Options:
  -H, --harness <ids>   only these harnesses (comma-separated)
      --json            print every normalized event as NDJSON instead
  -h, --help            this help`;

const NOTE = '# Notes\n\nWritten by the Reins demo.\n';

interface Lane {
  id: HarnessId;
  version?: string;
  lines: string[];
  ok: boolean;
}

function installed(id: HarnessId): { ok: true; version: string } | { ok: false } {
  try {
    return { ok: true, version: harnessBinary(id as Parameters<typeof harnessBinary>[0]).version };
  } catch {
    return { ok: false };
  }
}

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
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

  const ids = (wanted as HarnessId[]).filter((id) => installed(id).ok);
  if (ids.length === 0) {
    io.stderr.write(
      'No pinned harness CLI is installed for the demo. Run `npm run setup:harnesses` in the Reins checkout\n' +
        '(it installs the exact CLI versions Reins is tested with into harness-clis/), then `reins demo` again.\n',
    );
    return EXIT.usage;
  }
  const style = makeStyle(wantsColor(io));
  if (!values.json)
    io.stdout.write(style.dim(`Scripted session through ${ids.join(', ')} (hermetic, scripted model)…\n`));
  const lanes: Lane[] = [];
  // Two at a time: every harness is a real CLI process and the machine may have two cores.
  for (let index = 0; index < ids.length; index += 2) {
    const batch = ids.slice(index, index + 2);
    lanes.push(...(await Promise.all(batch.map((id) => runLane(id, style, values.json ? io : undefined)))));
  }
  if (!values.json) io.stdout.write(sideBySide(lanes, style, Number(io.env.COLUMNS) || 120));
  return lanes.every((lane) => lane.ok) ? EXIT.completed : EXIT.failed;
}

async function runLane(id: HarnessId, style: Style, ndjson: CliIo | undefined): Promise<Lane> {
  const lane: Lane = { id, lines: [], ok: true };
  const version = installed(id);
  if (version.ok) lane.version = version.version;
  const server = await startModelServer();
  const target = conformanceTarget(id);
  let setup: Awaited<ReturnType<typeof target.setup>> | undefined;
  try {
    setup = await target.setup(server, '');
    const workspace = join(process.env.TMPDIR ?? '/tmp', `reins-demo-${id}-${process.pid}`);
    await import('node:fs/promises').then((fs) => fs.mkdir(workspace, { recursive: true }));
    const session = await setup.harness.createSession({ cwd: workspace, model: setup.models.primary });
    const recorder = new SessionRecorder(session, 120_000);
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
      const terminal = await recorder.turn(prompt, {}, 120_000);
      if (terminal.outcome.status !== 'completed') lane.ok = false;
    }
    await recorder.close();
    for (const event of recorder.events) {
      if (ndjson) ndjson.stdout.write(`${JSON.stringify(event)}\n`);
      const line = summarize(event, style);
      if (line) lane.lines.push(line);
    }
    const written =
      existsSync(join(workspace, 'NOTES.md')) &&
      readFileSync(join(workspace, 'NOTES.md'), 'utf8').includes('Reins demo');
    lane.lines.push(written ? style.green('NOTES.md is on disk') : style.red('NOTES.md was not written'));
    if (!written) lane.ok = false;
  } catch (error) {
    lane.ok = false;
    lane.lines.push(style.red(`failed: ${error instanceof Error ? error.message : String(error)}`));
  } finally {
    await setup?.dispose?.();
    await server.close();
  }
  return lane;
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
      fit(style.bold(`${lane.ok ? '●' : '○'} ${lane.id} ${lane.version ?? ''}`), width),
    );
    out += `\n${headers.join('  ')}\n${band.map(() => '─'.repeat(width)).join('  ')}\n`;
    const rows = Math.max(...band.map((lane) => lane.lines.length));
    for (let row = 0; row < rows; row++) {
      out += `${band.map((lane) => fit(lane.lines[row] ?? '', width)).join('  ')}`.trimEnd();
      out += '\n';
    }
  }
  const failed = lanes.filter((lane) => !lane.ok).map((lane) => lane.id);
  out += `\n${failed.length === 0 ? style.green(`All ${lanes.length} harness${lanes.length === 1 ? '' : 'es'} gave the same normalized stream.`) : style.red(`Failed: ${failed.join(', ')}`)}\n`;
  return out.replace(/[ \t]+\n/g, '\n');
}
