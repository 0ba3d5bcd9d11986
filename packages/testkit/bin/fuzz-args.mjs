// `npm run fuzz` arguments: parsed into what the run needs (which fuzz test files, and the environment
// they read through the testkit's fuzzSettings() and fuzzSelection()). Pure: no process, no I/O, so the
// unit test (src/fuzz/fuzz-args.test.ts) calls it directly; the adapters it knows are handed in
// (fuzz-targets.mjs reads them from the harness folders). Plain Node ESM with no dependencies, so
// `npm run fuzz` needs no build; types in fuzz-args.d.mts.
/** The bridges' translators (packages/bridges/src/translate.fuzz.test.ts), by `reins bridge` protocol name. */
export const FUZZ_BRIDGES = ['codex-app-server', 'acp'];

const ADAPTERS_FILE = 'packages/harnesses/src/translate.fuzz.test.ts';
const BRIDGES_FILE = 'packages/bridges/src/translate.fuzz.test.ts';
const DEFAULT_CASES = '200000';

/** The help, naming the adapters with a fuzz target. */
export const fuzzHelp = (
  adapters,
) => `Usage: npm run fuzz -- [--seed N] [--cases N | --case I] [--adapters LIST] [--bridges LIST]

Runs every seeded fuzz test (*.fuzz.test.ts, unit tier) with many more cases than the unit tier does:
recorded native frames, damaged, through each adapter's translation; Reins events, damaged, through
each bridge's translators.

Options:
  --seed N          the seed (default: a fresh one, printed)
  --cases N         cases per fuzz test (default ${DEFAULT_CASES})
  --case I          only case I of the seed (what a failure prints to reproduce it)
  --adapters LIST   only these adapters' translations, comma-separated, or all:
                    ${adapters.join(', ')}
  --bridges LIST    only these bridges, comma-separated, or all: ${FUZZ_BRIDGES.join(', ')}
                    With --adapters or --bridges, only what they name runs (--adapters all: no bridges).
  -h, --help        this help

A case's number depends on the selection: reproduce it with the same --adapters / --bridges.

Examples:
  npm run fuzz -- --cases 500000
  npm run fuzz -- --adapters codex,pi --cases 50000
  npm run fuzz -- --bridges all
  npm run fuzz -- --seed 42 --adapters codex,pi --case 1234`;

export class FuzzUsageError extends Error {
  name = 'FuzzUsageError';
}

function count(name, value) {
  if (value === undefined || !/^\d+$/.test(value)) throw new FuzzUsageError(`--${name} needs a non-negative integer`);
  return value;
}

function list(name, value, known) {
  if (value === undefined || value.trim() === '' || value.startsWith('--'))
    throw new FuzzUsageError(`--${name} needs a comma-separated list: ${known.join(', ')}, or all`);
  const names = value.split(',').map((part) => part.trim());
  if (names.length === 1 && names[0] === 'all') return [...known];
  const unknown = names.filter((part) => !known.includes(part));
  if (unknown.length > 0)
    throw new FuzzUsageError(`--${name}: unknown "${unknown.join('", "')}"; known: ${known.join(', ')}, or all`);
  return [...new Set(names)];
}

/**
 * `args` as after `npm run fuzz --`, and the adapters with a fuzz target. Returns { help: true } for
 * -h/--help, else the options; throws FuzzUsageError with a sentence to print for anything else.
 */
export function parseFuzzArgs(args, adapters) {
  const options = { help: false, cases: DEFAULT_CASES };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '-h' || arg === '--help') return { help: true };
    const [name, inline] = arg.startsWith('--') ? splitInline(arg.slice(2)) : [undefined, undefined];
    const value = () => inline ?? args[++index];
    switch (name) {
      case 'seed':
      case 'cases':
      case 'case':
        options[name] = count(name, value());
        break;
      case 'adapters':
        options.adapters = list(name, value(), adapters);
        break;
      case 'bridges':
        options.bridges = list(name, value(), FUZZ_BRIDGES);
        break;
      default:
        throw new FuzzUsageError(`unknown argument "${arg}"`);
    }
  }
  return options;
}

function splitInline(text) {
  const at = text.indexOf('=');
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/**
 * What to run for parsed options and a seed: the vitest file filters, the environment the fuzz tests
 * read (REINS_FUZZ_SEED / _CASES / _CASE / _ADAPTERS / _BRIDGES) and a one-line summary.
 */
export function fuzzPlan(options, seed) {
  const selected = options.adapters !== undefined || options.bridges !== undefined;
  const files = selected
    ? [...(options.adapters ? [ADAPTERS_FILE] : []), ...(options.bridges ? [BRIDGES_FILE] : [])]
    : ['.fuzz.test.ts'];
  const env = {
    REINS_FUZZ_SEED: seed,
    REINS_FUZZ_CASES: options.cases,
    ...(options.case !== undefined ? { REINS_FUZZ_CASE: options.case } : {}),
    ...(options.adapters ? { REINS_FUZZ_ADAPTERS: options.adapters.join(',') } : {}),
    ...(options.bridges ? { REINS_FUZZ_BRIDGES: options.bridges.join(',') } : {}),
  };
  const what = options.case !== undefined ? `case ${options.case}` : `${options.cases} cases per fuzz test`;
  const only = [
    ...(options.adapters ? [`adapters ${options.adapters.join(', ')}`] : []),
    ...(options.bridges ? [`bridges ${options.bridges.join(', ')}`] : []),
  ];
  return { files, env, summary: `fuzz: seed ${seed}, ${what}${only.length > 0 ? `; only ${only.join('; ')}` : ''}` };
}
