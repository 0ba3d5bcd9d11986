#!/usr/bin/env node
// `npm run fuzz`: every seeded fuzz test (`*.fuzz.test.ts`, unit tier) with many more cases than the
// unit tier's default, or only the adapters and bridges named. `npm run fuzz -- --help` says how; the
// arguments are parsed in fuzz-args.mjs. The settings reach the tests as REINS_FUZZ_SEED / _CASES /
// _CASE (testkit fuzzSettings) and REINS_FUZZ_ADAPTERS / _BRIDGES (testkit fuzzSelection).
// Plain Node ESM with no dependencies.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { FuzzUsageError, fuzzHelp, fuzzPlan, parseFuzzArgs } from './fuzz-args.mjs';
import { fuzzAdapterNames } from './fuzz-targets.mjs';

const EXIT_USAGE = 2;
const adapters = fuzzAdapterNames();

let parsed;
try {
  parsed = parseFuzzArgs(process.argv.slice(2), adapters);
} catch (error) {
  if (!(error instanceof FuzzUsageError)) throw error;
  process.stderr.write(`fuzz: ${error.message}\n(npm run fuzz -- --help says what it takes)\n`);
  process.exit(EXIT_USAGE);
}
if (parsed.help) {
  process.stdout.write(`${fuzzHelp(adapters)}\n`);
  process.exit(0);
}
const plan = fuzzPlan(parsed, parsed.seed ?? String(randomInt(0, 2 ** 32)));
process.stdout.write(`${plan.summary}\n`);

const child = spawn('npx', ['vitest', 'run', '--project', 'unit', ...plan.files], {
  stdio: 'inherit',
  env: { ...process.env, ...plan.env },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
