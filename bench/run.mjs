#!/usr/bin/env node
// `npm run bench`: Reins against the raw CLIs and their peers, in ONE run so that the ratios between
// paths are measured under the same machine load. Installs bench/'s peer packages when missing,
// re-runs itself inside the testkit's loopback-only namespace, drives every real CLI against the
// scripted model server, prints a table and writes bench/results/<timestamp>.json.
// Not part of `npm test` or CI; nothing here asserts a timing. See bench/README.md.
//
//   node bench/run.mjs [--quick] [--only turns,translate,latency,memory,store]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH_DIR);
const SECTIONS = ['turns', 'translate', 'latency', 'memory', 'store'];

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
});
if (values.help) {
  process.stdout.write(
    'Usage: npm run bench [-- --quick] [-- --only turns,translate,latency,memory]\n' +
      '  --quick  fewer runs and smaller corpora, for working on the bench itself (figures are rougher)\n' +
      '  sections: turns, translate, latency, memory, store\n',
  );
  process.exit(0);
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
const quick = values.quick === true;
const log = (line) => process.stderr.write(`${line}\n`);
const results = { startedAt: new Date().toISOString(), quick, machine: await machine(BENCH_DIR), sections: {} };

for (const name of only) {
  const started = performance.now();
  log(`\n== ${name}`);
  const section = await import(`./sections/${name}.mjs`);
  try {
    results.sections[name] = await section.run({ quick, log, benchDir: BENCH_DIR, root: ROOT });
  } catch (error) {
    log(`bench: section ${name} failed: ${error?.stack ?? error}`);
    results.sections[name] = { error: String(error?.message ?? error) };
  }
  log(`   (${name} took ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

const { targets } = await import('./lib/targets.mjs');
results.targets = targets(results.sections);
results.finishedAt = new Date().toISOString();

const resultsDir = join(BENCH_DIR, 'results');
await mkdir(resultsDir, { recursive: true });
const file = join(resultsDir, `${results.startedAt.replace(/[:.]/g, '-')}.json`);
await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);

const { renderTable } = await import('./lib/table.mjs');
process.stdout.write(renderTable(results));
// Sections that render their own figure (store) hand it over as `report`.
for (const section of Object.values(results.sections))
  if (typeof section?.report === 'string') process.stdout.write(section.report);
process.stdout.write(`\nAll figures: ${file}\n`);
