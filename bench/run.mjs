#!/usr/bin/env node
// `npm run bench`: Reins against the raw CLIs and their peers, in ONE run so that the ratios between
// paths are measured under the same machine load. Installs bench/'s peer packages when missing,
// re-runs itself inside the testkit's loopback-only namespace, drives every real CLI against the
// scripted model server, prints a table and writes bench/results/<timestamp>.json.
// Not part of `npm test` or CI; nothing here asserts a timing. See bench/README.md.
//
//   node bench/run.mjs [--quick] [--load N] [--only <section>,...]   (sections: SECTION_FIGURES, --help)
// With --load N every section runs twice, quiet and then beside N busy workers (bench/lib/load.mjs),
// and the targets are judged on both.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH_DIR);
const SECTIONS = [
  'turns',
  'translate',
  'latency',
  'memory',
  'store',
  'cluster',
  'console',
  'daemon',
  'stream',
  'bridges',
];
/** The figures of each section, numbered as in bench/README.md. */
const SECTION_FIGURES = {
  turns: '1-2  cold and warm turns, warm starts (Claude Code)',
  translate: '3    translation throughput',
  latency: '4    added latency per event',
  memory: '5    memory per idle session; Codex shared app-server and warm starts',
  store: '6    daemon store (SQLite)',
  cluster: '7    cluster (NATS JetStream)',
  daemon: '8    daemon: latency over the WebSocket, fan-out, RSS per session',
  stream: '8d   daemon: memory while a harness streams a large output',
  bridges: '9    bridges: reins bridge against the protocol servers',
  console: '10   web console in Chromium',
};

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    load: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
});
if (values.help) {
  process.stdout.write(
    'Usage: npm run bench [-- --quick] [-- --load N] [-- --only <section>,...]\n' +
      '  --quick   fewer runs and smaller corpora, about 3 minutes (figures are rougher)\n' +
      '  --load N  run every section twice: quiet, then beside N busy worker processes\n' +
      '  --only    these sections only (default: all)\n' +
      'Sections and their figures (bench/README.md):\n' +
      Object.entries(SECTION_FIGURES)
        .map(([name, figures]) => `  ${name.padEnd(10)}${figures}\n`)
        .join(''),
  );
  process.exit(0);
}
const load = values.load === undefined ? 0 : Number(values.load);
if (values.load !== undefined && !(Number.isInteger(load) && load >= 1 && load <= 64)) {
  process.stderr.write(`bench: --load takes a number of busy workers from 1 to 64, not "${values.load}"\n`);
  process.exit(2);
}
const only = values.only ? values.only.split(',').map((name) => name.trim()) : SECTIONS;
const unknown = only.filter((name) => !SECTIONS.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown section ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}\n`);
  process.exit(2);
}

// The peer SDK lives in bench/node_modules (bench/package.json, exact pin), installed before the
// namespace is entered: inside it there is no network.
if (
  !process.env.REINS_HERMETIC &&
  only.includes('turns') &&
  !existsSync(join(BENCH_DIR, 'node_modules/@openai/codex-sdk'))
) {
  process.stderr.write('bench: installing the peer packages in bench/ (npm ci --prefix bench)…\n');
  const installed = spawnSync(
    'npm',
    ['ci', '--prefix', BENCH_DIR, '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund'],
    { stdio: 'inherit' },
  );
  if (installed.status !== 0) process.exit(installed.status ?? 1);
}

const { isHermetic } = await import('@reins/testkit');
if (!(await isHermetic())) {
  // Real CLIs run only inside the loopback-only namespace: run this script again inside one.
  const launcher = join(ROOT, 'packages/testkit/bin/hermetic.mjs');
  const result = spawnSync(
    process.execPath,
    [launcher, '--', process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
    },
  );
  process.exit(result.status ?? 1);
}

const { machine } = await import('./lib/machine.mjs');
const { startLoad } = await import('./lib/load.mjs');
const { loadavg } = await import('node:os');
const quick = values.quick === true;
const log = (line) => process.stderr.write(`${line}\n`);
const results = {
  startedAt: new Date().toISOString(),
  quick,
  load,
  machine: await machine(BENCH_DIR),
  // The machine's load average when each section (and each loaded run of it) started.
  conditions: {},
  sections: {},
  ...(load > 0 ? { loaded: { workers: load, sections: {} } } : {}),
};

async function runSection(name, mode) {
  const started = performance.now();
  log(`\n== ${name}${mode === 'loaded' ? ` (beside ${load} busy workers)` : ''}`);
  const section = await import(`./sections/${name}.mjs`);
  const workers = mode === 'loaded' ? await startLoad(load) : undefined;
  results.conditions[name] = {
    ...results.conditions[name],
    [mode]: loadavg().map((value) => Number(value.toFixed(2))),
  };
  try {
    return await section.run({ quick, log, benchDir: BENCH_DIR, root: ROOT });
  } catch (error) {
    log(`bench: section ${name} failed: ${error?.stack ?? error}`);
    return { error: String(error?.message ?? error) };
  } finally {
    await workers?.stop();
    log(`   (${name} took ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
}

// Quiet and loaded run back to back per section, so that both see the machine as it was then.
for (const name of only) {
  results.sections[name] = await runSection(name, 'quiet');
  if (load > 0) results.loaded.sections[name] = await runSection(name, 'loaded');
}

const { targets } = await import('./lib/targets.mjs');
results.targets = targets(results.sections);
if (results.loaded) results.loaded.targets = targets(results.loaded.sections, { loaded: true });
results.finishedAt = new Date().toISOString();

const resultsDir = join(BENCH_DIR, 'results');
await mkdir(resultsDir, { recursive: true });
const file = join(resultsDir, `${results.startedAt.replace(/[:.]/g, '-')}.json`);
await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);

const { renderTable } = await import('./lib/table.mjs');
process.stdout.write(renderTable(results));
process.stdout.write(`\nAll figures: ${file}\n`);
