// The fuzz loop: case i of a run is built from caseSeed(seed, i) alone, checked, and every exception that
// escapes the check counts as a problem of that case. The report says how many cases ran with which
// seed, what went wrong how often, and how to rebuild each failing case (`--seed S --case I`).
import { caseSeed, createRandom, type Random } from './random.js';

export interface FuzzSettings {
  seed: number;
  cases: number;
  /** Run only this case index (to reproduce one failure). */
  only?: number;
}

function parseCount(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, not "${text}".`);
  return value;
}

/**
 * Settings from REINS_FUZZ_SEED, REINS_FUZZ_CASES and REINS_FUZZ_CASE (what `npm run fuzz -- --seed S
 * --cases N --case I` sets), else the given defaults. A fixed default seed keeps the unit tier the same on
 * every run; `npm run fuzz` picks a fresh one.
 */
export function fuzzSettings(
  defaults: { seed?: number; cases: number },
  env: Record<string, string | undefined> = process.env,
): FuzzSettings {
  const seed = parseCount(env.REINS_FUZZ_SEED, 'REINS_FUZZ_SEED') ?? defaults.seed ?? 1;
  const cases = parseCount(env.REINS_FUZZ_CASES, 'REINS_FUZZ_CASES') ?? defaults.cases;
  const only = parseCount(env.REINS_FUZZ_CASE, 'REINS_FUZZ_CASE');
  return { seed: seed >>> 0, cases, ...(only !== undefined ? { only } : {}) };
}

/** Which adapters' and bridges' translators to fuzz (undefined: every one). */
export interface FuzzSelection {
  adapters?: readonly string[];
  bridges?: readonly string[];
}

const names = (text: string | undefined) =>
  text === undefined || text.trim() === '' ? undefined : text.split(',').map((name) => name.trim());

/** The selection from REINS_FUZZ_ADAPTERS and REINS_FUZZ_BRIDGES (what `npm run fuzz -- --adapters codex,pi` sets). */
export function fuzzSelection(env: Record<string, string | undefined> = process.env): FuzzSelection {
  const adapters = names(env.REINS_FUZZ_ADAPTERS);
  const bridges = names(env.REINS_FUZZ_BRIDGES);
  return { ...(adapters ? { adapters } : {}), ...(bridges ? { bridges } : {}) };
}

/**
 * The items named in `wanted` (all of them when it is undefined), in `items`' order. A name no item has is
 * an error that lists the known ones: a typo must not fuzz nothing and pass.
 */
export function selectByName<T extends { name: string }>(
  items: readonly T[],
  wanted: readonly string[] | undefined,
  what: string,
): T[] {
  if (wanted === undefined) return [...items];
  const unknown = wanted.filter((name) => !items.some((item) => item.name === name));
  if (unknown.length > 0 || wanted.length === 0) {
    throw new Error(`${what}: unknown "${unknown.join('", "')}"; known: ${items.map((item) => item.name).join(', ')}.`);
  }
  return items.filter((item) => wanted.includes(item.name));
}

/**
 * How to run one failing case alone under a selection: a case's number picks its target among the
 * selected ones, so the command must name the same selection.
 */
export function reproduceWith(selection: FuzzSelection): (failure: FuzzFailure, report: FuzzReport) => string {
  const flags = [
    ...(selection.adapters ? [`--adapters ${selection.adapters.join(',')}`] : []),
    ...(selection.bridges ? [`--bridges ${selection.bridges.join(',')}`] : []),
  ];
  return (failure, report) =>
    ['npm run fuzz --', `--seed ${report.seed}`, ...flags, `--case ${failure.index}`].join(' ');
}

/** What one case is about, for the report (the frames themselves are rebuilt from the seed). */
export interface FuzzCaseInfo {
  /** Which target and corpus entry: 'codex text-turn.0.169.0'. */
  label: string;
  /** Human-readable mutations. */
  mutations: readonly string[];
}

export interface FuzzFailure extends FuzzCaseInfo {
  index: number;
  caseSeed: number;
  problems: string[];
}

export interface FuzzReport {
  seed: number;
  cases: number;
  failedCases: number;
  /** Problems by kind ('exception', 'invalid payload item.delta', ...), counted once per case. */
  problemCounts: Record<string, number>;
  /** Cases per label prefix (the first word: the target). */
  casesByTarget: Record<string, number>;
  /** Failed cases per target and problem kind. */
  problemsByTarget: Record<string, Record<string, number>>;
  /** Distinct problems (ids and values left out) with how many cases had each and the first of them. */
  distinctProblems: Record<string, { cases: number; firstCase: number }>;
  /** The first failures, in case order. */
  failures: FuzzFailure[];
}

export interface FuzzRun<Case extends FuzzCaseInfo> {
  settings: FuzzSettings;
  /** Builds case `index` from its own Random; must use nothing else that varies. */
  build(random: Random, index: number): Case;
  /** Problems of one case (empty: it passed). A throw is recorded as an exception of that case. */
  check(fuzzCase: Case): readonly string[];
  /** Failures kept with their details (default 20). */
  keepFailures?: number;
}

/** A problem with the parts that vary from case to case (ids, quoted values, numbers) left out. */
export function problemShape(problem: string): string {
  return problem
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b(item|turn|tool) \S+/g, '$1 …')
    .replace(/\{.*\}/g, '{…}')
    .replace(/\b\d+\b(?![:)])/g, 'N')
    .slice(0, 300);
}

/** The kind of a problem: its text up to the first colon, ids and numbers left out. */
export function problemKind(problem: string): string {
  const head = problem.split(':')[0] ?? problem;
  return head.replace(/\b(item|turn) \S+/g, '$1').trim();
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // REINS_FUZZ_STACK=1: the whole stack, for the one case being reproduced.
  if (process.env.REINS_FUZZ_STACK === '1') return `${error.name}: ${error.message}\n${error.stack ?? ''}`;
  const frame = error.stack?.split('\n').find((line) => line.includes('/packages/'));
  return `${error.name}: ${error.message}${frame ? ` (${frame.trim()})` : ''}`;
}

export function runFuzz<Case extends FuzzCaseInfo>(run: FuzzRun<Case>): FuzzReport {
  const { seed, cases, only } = run.settings;
  const keep = run.keepFailures ?? 20;
  const report: FuzzReport = {
    seed,
    cases: 0,
    failedCases: 0,
    problemCounts: {},
    casesByTarget: {},
    problemsByTarget: {},
    distinctProblems: {},
    failures: [],
  };
  const indices = only !== undefined ? [only] : Array.from({ length: cases }, (_, index) => index);
  for (const index of indices) {
    const perCase = caseSeed(seed, index);
    let fuzzCase: Case | undefined;
    let problems: readonly string[];
    try {
      fuzzCase = run.build(createRandom(perCase), index);
      problems = run.check(fuzzCase);
    } catch (error) {
      problems = [`exception: ${describeError(error)}`];
    }
    report.cases++;
    const target = fuzzCase?.label.split(' ')[0] ?? '(unbuilt)';
    report.casesByTarget[target] = (report.casesByTarget[target] ?? 0) + 1;
    if (problems.length === 0) continue;
    report.failedCases++;
    const byTarget = report.problemsByTarget[target] ?? {};
    report.problemsByTarget[target] = byTarget;
    for (const shape of new Set(problems.map((problem) => `${target}: ${problemShape(problem)}`))) {
      const seen = report.distinctProblems[shape];
      if (seen) seen.cases++;
      else if (Object.keys(report.distinctProblems).length < 500)
        report.distinctProblems[shape] = { cases: 1, firstCase: index };
    }
    for (const kind of new Set(problems.map(problemKind))) {
      report.problemCounts[kind] = (report.problemCounts[kind] ?? 0) + 1;
      byTarget[kind] = (byTarget[kind] ?? 0) + 1;
    }
    if (report.failures.length < keep) {
      report.failures.push({
        index,
        caseSeed: perCase,
        label: fuzzCase?.label ?? '(the case could not be built)',
        mutations: fuzzCase?.mutations ?? [],
        problems: [...problems].slice(0, 10),
      });
    }
  }
  return report;
}

/** A readable summary; `reproduce` turns a failure into the command that runs it alone. */
export function formatFuzzReport(
  report: FuzzReport,
  reproduce: (failure: FuzzFailure, report: FuzzReport) => string = reproduceWith({}),
): string {
  const lines = [
    `fuzz: ${report.cases} cases with seed ${report.seed}, ${report.failedCases} failed`,
    `  cases per target: ${Object.entries(report.casesByTarget)
      .map(([target, count]) => `${target} ${count}`)
      .join(', ')}`,
  ];
  const counts = Object.entries(report.problemCounts).sort((a, b) => b[1] - a[1]);
  if (counts.length > 0) lines.push('  failed cases by problem:', ...counts.map(([kind, n]) => `    ${n}  ${kind}`));
  for (const [target, kinds] of Object.entries(report.problemsByTarget)) {
    const parts = Object.entries(kinds).sort((a, b) => b[1] - a[1]);
    lines.push(`  ${target}: ${parts.map(([kind, n]) => `${n} ${kind}`).join(', ')}`);
  }
  const distinct = Object.entries(report.distinctProblems).sort((a, b) => b[1].cases - a[1].cases);
  if (distinct.length > 0) {
    lines.push(
      `  distinct problems (${distinct.length}):`,
      ...distinct.map(([shape, seen]) => `    ${seen.cases}  ${shape}  (first: case ${seen.firstCase})`),
    );
  }
  for (const failure of report.failures) {
    lines.push(
      `  case ${failure.index} (${failure.label}); reproduce: ${reproduce(failure, report)}`,
      ...failure.mutations.map((mutation) => `    mutation: ${mutation}`),
      ...failure.problems.map(
        (problem) => `    problem: ${problem.length > 400 ? `${problem.slice(0, 400)}…` : problem}`,
      ),
    );
  }
  return lines.join('\n');
}
