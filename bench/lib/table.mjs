// The terminal report: one table per figure, then the targets. Every number here is also in the JSON.
import { cell } from './stats.mjs';

function table(headers, rows) {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => String(row[column]).length)),
  );
  const line = (cells) =>
    cells
      .map((value, column) => String(value).padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

const fixed = (value, digits = 2) => (typeof value === 'number' ? value.toFixed(digits) : 'n/a');

export function renderTable(results) {
  const { machine } = results;
  const parts = [
    `\nReins bench ${results.quick ? '(--quick) ' : ''}${results.startedAt}: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryMB} MB, node ${machine.node}, load ${machine.loadAverageAtStart.join(' ')}`,
    `CLIs: ${Object.entries(machine.cli)
      .map(([id, version]) => `${id} ${version}`)
      .join(', ')}; peers: ${Object.entries(machine.packages)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}`,
  ];
  const conditions = Object.entries(results.conditions ?? {})
    .map(
      ([name, modes]) =>
        `${name} ${Object.entries(modes)
          .map(([mode, average]) => `${mode} ${average[0]}`)
          .join(' / ')}`,
    )
    .join('; ');
  if (conditions) parts.push(`Load average (1 min) when each section started: ${conditions}`);
  if (results.loaded) {
    parts.push(`\n---- quiet (no workers started by the bench) ----`);
    renderSections(parts, results.sections);
    parts.push(`\n---- loaded (beside ${results.loaded.workers} busy workers) ----`);
    renderSections(parts, results.loaded.sections);
  } else renderSections(parts, results.sections);
  parts.push('\nTargets (issues 21 and 30)', renderTargets(results.targets, results.loaded?.targets));
  return `${parts.join('\n')}\n`;
}

/** One row per target: PASS / MISS / N/A quiet (and loaded when measured), the figures. */
function renderTargets(quiet, loaded) {
  const status = (entry) => (entry ? entry.status.toUpperCase() : 'N/A');
  if (!loaded)
    return table(
      ['', 'target', 'figure'],
      quiet.map((t) => [status(t), t.target, t.detail]),
    );
  const byName = new Map(loaded.map((t) => [t.target, t]));
  const names = [
    ...quiet.map((t) => t.target),
    ...loaded.map((t) => t.target).filter((n) => !quiet.some((t) => t.target === n)),
  ];
  const quietByName = new Map(quiet.map((t) => [t.target, t]));
  return table(
    ['quiet', 'loaded', 'target', 'quiet figure', 'loaded figure'],
    names.map((name) => [
      status(quietByName.get(name)),
      status(byName.get(name)),
      name,
      quietByName.get(name)?.detail ?? '',
      byName.get(name)?.detail ?? '',
    ]),
  );
}

function renderSections(parts, sections) {
  const turns = sections.turns;
  if (turns?.paths) {
    const rows = [];
    const best = {
      'claude-code': turns.paths['claude.agent-sdk'],
      'claude-agent-acp': turns.paths['claude.agent-sdk'],
      codex: turns.paths['codex.raw-app-server'],
    };
    for (const [id, path] of Object.entries(turns.paths)) {
      const reference = best[path.harness];
      const vs = (figure) => {
        const mine = figure === 'cold' ? path.cold.turnEndMs.median : path.warm.turnEndMs.median;
        const theirs = figure === 'cold' ? reference?.cold.turnEndMs.median : reference?.warm.turnEndMs.median;
        return mine && theirs ? `${(mine / theirs).toFixed(2)}x` : 'n/a';
      };
      rows.push([
        path.label,
        cell(path.cold.firstTextMs),
        cell(path.cold.turnEndMs),
        vs('cold'),
        cell(path.warm.turnEndMs),
        vs('warm'),
        cell(path.warm.firstTurnEndMs),
        path.errors.length > 0 ? `${path.errors.length} error(s): ${path.errors[0].slice(0, 60)}` : '',
      ]);
      void id;
    }
    parts.push(
      `\n1-2. Turns (median (min-max) ms; cold n=${turns.coldRuns}; warm = turns 2-${turns.warmTurns} of ${turns.warmSessions ?? 1} session(s) per path; ratio = median / the best raw path's)`,
      table(
        ['path', 'cold first text', 'cold turn end', 'ratio', 'warm turn end', 'ratio', 'warm turn 1', 'errors'],
        rows,
      ),
    );
    const split = Object.values(turns.paths)
      .filter((path) => path.inside)
      .map((path) => [
        path.label,
        fixed(path.inside.coldBeforeSpawnMs?.median, 3),
        fixed(path.inside.coldTextMs.median, 3),
        fixed(path.inside.coldEndMs.median, 3),
        fixed(path.inside.warmSendMs?.median, 3),
        fixed(path.inside.warmTextMs.median, 3),
        fixed(path.inside.warmEndMs.median, 3),
        `${fixed(path.inside.warmEndMs.max, 3)}`,
      ]);
    if (split.length > 0)
      parts.push(
        "\n   Latency split, inside Reins (median ms): a cold open until the new CLI got its first line, send() -> the turn's first line to the CLI's stdin, and the frame tap's line split -> the session.events consumer; the rest of a turn is the CLI",
        table(
          [
            'path',
            'cold open -> stdin',
            'cold first text',
            'cold turn end',
            'warm send -> stdin',
            'warm first text',
            'warm turn end',
            'warm end max',
          ],
          split,
        ),
      );
  }
  const translate = sections.translate;
  if (translate?.adapters) {
    const rows = Object.entries(translate.adapters).map(([id, entry]) => [
      id,
      entry.fixtures,
      entry.corpusMB,
      entry.frames,
      entry.ceiling.mbPerSec,
      entry.translate.mbPerSec,
      entry.translate.framesPerSec,
      `${(entry.ratio * 100).toFixed(0)}%`,
    ]);
    parts.push(
      `\n3. Translation throughput (CPU time; ceiling = LineSplitter + JSON.parse on the same corpus; MB/s best of ${translate.passes} passes, of ceiling = median)`,
      table(
        ['adapter', 'fixtures', 'corpus MB', 'frames', 'ceiling MB/s', 'translate MB/s', 'frames/s', 'of ceiling'],
        rows,
      ),
    );
  }
  const latency = sections.latency;
  if (latency?.rates) {
    const rows = Object.entries(latency.rates).map(([rate, entry]) => [
      rate,
      entry.frames,
      `${fixed(entry.reinsMicros.p50, 0)} / ${fixed(entry.reinsMicros.p99, 0)} / ${fixed(entry.reinsMicros.max, 0)}`,
      `${fixed(entry.floorMicros.p50, 0)} / ${fixed(entry.floorMicros.p99, 0)} / ${fixed(entry.floorMicros.max, 0)}`,
      entry.insideReinsMicros
        ? `${fixed(entry.insideReinsMicros.p50, 0)} / ${fixed(entry.insideReinsMicros.p99, 0)} / ${fixed(entry.insideReinsMicros.max, 0)}`
        : 'n/a',
      `${fixed(entry.reinsCpuMicrosPerFrame, 1)} / ${fixed(entry.floorCpuMicrosPerFrame, 1)}`,
    ]);
    parts.push(
      '\n4. Latency per event, native line written -> consumer (µs; Reins = session.events, floor = bare split + parse)',
      table(
        [
          'rate',
          'frames',
          'Reins p50 / p99 / max',
          'floor p50 / p99 / max',
          'inside Reins p50 / p99 / max',
          'CPU µs/frame Reins / floor',
        ],
        rows,
      ),
    );
  }
  const memory = sections.memory;
  if (memory?.harnesses) {
    const rows = [];
    for (const [harness, counts] of Object.entries(memory.harnesses)) {
      for (const [count, entry] of Object.entries(counts)) {
        rows.push([
          harness,
          count,
          fixed(entry.rssPerSessionMB, 3),
          fixed(entry.heapPerSessionMB, 3),
          `${fixed(entry.baseRssMB, 1)} -> ${fixed(entry.afterRssMB, 1)}`,
        ]);
      }
    }
    for (const [harness, entry] of Object.entries(memory.floors ?? {})) {
      rows.push([
        `${harness} floor: the Agent SDK's query() alone`,
        entry.sessions,
        fixed(entry.rssPerSessionMB, 3),
        fixed(entry.heapPerSessionMB, 3),
        `${fixed(entry.baseRssMB, 1)} -> ${fixed(entry.afterRssMB, 1)}`,
      ]);
    }
    parts.push(
      '\n5. Memory of the Reins process per idle session (harness children excluded; after GC)',
      table(['adapter', 'sessions', 'RSS MB/session', 'heap MB/session', 'RSS MB'], rows),
    );
  }
  // Sections that render their own figure (store) hand it over as `report`.
  for (const section of Object.values(sections)) if (typeof section?.report === 'string') parts.push(section.report);
  for (const [name, section] of Object.entries(sections)) {
    if (section?.error) parts.push(`\n${name}: FAILED: ${section.error}`);
  }
}
