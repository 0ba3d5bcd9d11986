#!/usr/bin/env node
// `npm run fuzz`: every seeded fuzz test (`*.fuzz.test.ts`, unit tier) with many more cases than the
// unit tier's default. Usage:
//   npm run fuzz                                   200,000 cases per fuzz test, a fresh seed (printed)
//   npm run fuzz -- --seed 42 --cases 500000       a chosen seed and count
//   npm run fuzz -- --seed 42 --case 1234          only case 1234 of seed 42 (what a failure prints)
// The settings reach the tests as REINS_FUZZ_SEED / REINS_FUZZ_CASES / REINS_FUZZ_CASE (testkit fuzzSettings).
// Plain Node ESM with no dependencies.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';

const EXIT_USAGE = 2;

function usage(message) {
  process.stderr.write(`fuzz: ${message}\nusage: npm run fuzz -- [--seed N] [--cases N] [--case I]\n`);
  process.exit(EXIT_USAGE);
}

const options = { seed: undefined, cases: '200000', case: undefined };
const args = process.argv.slice(2);
for (let index = 0; index < args.length; index++) {
  const arg = args[index];
  const [name, inline] = arg.startsWith('--') ? arg.slice(2).split('=', 2) : [undefined, undefined];
  if (name === undefined || !Object.hasOwn(options, name)) usage(`unknown argument "${arg}"`);
  const value = inline ?? args[++index];
  if (value === undefined || !/^\d+$/.test(value)) usage(`--${name} needs a non-negative integer`);
  options[name] = value;
}
const seed = options.seed ?? String(randomInt(0, 2 ** 32));
process.stdout.write(
  `fuzz: seed ${seed}, ${options.case !== undefined ? `case ${options.case}` : `${options.cases} cases per fuzz test`}\n`,
);

const child = spawn('npx', ['vitest', 'run', '--project', 'unit', '.fuzz.test.ts'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    REINS_FUZZ_SEED: seed,
    REINS_FUZZ_CASES: options.cases,
    ...(options.case !== undefined ? { REINS_FUZZ_CASE: options.case } : {}),
  },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
