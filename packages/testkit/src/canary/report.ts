// The canary's verdict: the newest published CLIs compared with the pinned ones, behaviour by behaviour
// (conformance verdicts and passthrough frame types), plus Codex's protocol diff and whether the adapters
// still build against the newest wire types. Pure: runs in, report and text out.

import type { BehaviourResult } from '../conformance/suite.js';
import type { FrameCounts } from './passthrough.js';
import type { Successor } from './successors.js';

export interface BehaviourRun {
  behaviour: string;
  status: BehaviourResult['status'];
  reason?: string;
  passthrough: FrameCounts;
  durationMs: number;
}

export interface HarnessRun {
  id: string;
  packageName: string;
  version?: string;
  /** Why the harness could not be run at all (not installed, no platform binary). */
  error?: string;
  behaviours: BehaviourRun[];
}

/** One pass of the suite over one install (harness-clis/ or the canary's cache). */
export interface SuiteRun {
  root: string;
  harnesses: HarnessRun[];
  /** The SDK versions (and folders) the run's adapters really loaded. */
  sdks?: Record<string, string>;
}

export interface PackageLine {
  name: string;
  pinned: string;
  newest: string;
  /** A note from the install (e.g. the platform package the registry does not serve). */
  note?: string;
}

export interface VerdictChange {
  behaviour: string;
  pinned: BehaviourResult['status'] | 'not run';
  newest: BehaviourResult['status'] | 'not run';
  regressed: boolean;
  reason?: string;
}

export interface FrameChange {
  behaviour: string;
  type: string;
  pinned: number;
  newest: number;
}

export interface HarnessComparison {
  id: string;
  packageName: string;
  pinned?: string;
  newest?: string;
  /** Same CLI version and SDKs: one run stands for both. */
  sameAsPin: boolean;
  passedNewest: number;
  behaviours: number;
  /** Every behaviour of the newest run: its verdict and the passthrough frame types it counted. */
  newestRuns: BehaviourRun[];
  error?: string;
  verdictChanges: VerdictChange[];
  /** Frame types the newest sends as passthrough that the pinned did not, per behaviour. */
  newFrameTypes: FrameChange[];
  /** Frame types both send as passthrough, in different numbers. */
  changedFrameCounts: FrameChange[];
}

export interface ProtocolDiff {
  pinned: string;
  newest: string;
  generateTs: { files: number; added: string[]; removed: string[]; changed: string[] };
  jsonSchema: { files: number; added: string[]; removed: string[]; changed: string[] };
  methods: Record<'clientRequests' | 'serverNotifications' | 'serverRequests', { added: string[]; removed: string[] }>;
}

export interface BuildCheck {
  /** The harness adapter and the bridges type-checked against the pinned wire types (the baseline). */
  pinnedWire: { ok: boolean; errors: number };
  /** The same against the newest Codex's generated types (and the newest Agent and ACP SDK types). */
  newestWire: { ok: boolean; errors: number };
  /** Errors present with the newest wire and absent with the pinned one (file: message). */
  newErrors: string[];
}

export interface CanaryReport {
  date: string;
  cache: string;
  packages: PackageLine[];
  /** The Agent SDK and ACP SDK the newest run loaded (version and folder), proving which ran. */
  sdksLoaded?: Record<string, string>;
  harnesses: HarnessComparison[];
  protocol?: ProtocolDiff | { error: string };
  build?: BuildCheck | { error: string };
  /** One line per regressed behaviour (or harness that could not run); non-empty means exit 1. */
  regressions: string[];
  /** Pinned packages whose registry document names a successor (successors.ts). */
  successors?: Successor[];
}

/** Behaviours that fail on the newest, regressed or not (a failure on the pin too is still a failure). */
export function failingOnNewest(report: CanaryReport): string[] {
  return report.harnesses.flatMap((harness) =>
    harness.newestRuns
      .filter((run) => run.status === 'failed')
      .map((run) => `${harness.id} ${harness.newest ?? ''} / ${run.behaviour}${run.reason ? `: ${run.reason}` : ''}`),
  );
}

/** The verdict line: never "No behaviour regressed." alone while something fails on the newest. */
function verdictOf(report: CanaryReport): string {
  const failing = failingOnNewest(report);
  const tail =
    failing.length > 0
      ? `\nStill failing on the newest (${failing.length}, not regressions):\n${failing.map((line) => `  ${line}`).join('\n')}`
      : '';
  if (report.regressions.length > 0) {
    return `REGRESSIONS (${report.regressions.length}):\n${report.regressions.map((line) => `  ${line}`).join('\n')}${tail}`;
  }
  return failing.length > 0 ? `No behaviour regressed, but behaviours fail.${tail}` : 'No behaviour regressed.';
}

/** A pinned package that moved: the package to follow, and why we think so. */
function successorLines(report: CanaryReport): string[] {
  return (report.successors ?? []).map(
    (found) =>
      `  ${found.name} -> ${found.successor}${found.newest ? ` ${found.newest}` : ''} (${found.evidence}` +
      `${found.sameRepository ? ', same repository' : ', ANOTHER repository'}): "${found.says}"`,
  );
}

const RANK: Record<VerdictChange['pinned'], number> = { passed: 3, limited: 2, failed: 1, skipped: 0, 'not run': 0 };

/** Worse than before: a passed or limited behaviour now limited or failed, or not run at all. */
function regressed(pinned: VerdictChange['pinned'], newest: VerdictChange['newest']): boolean {
  if (pinned === 'skipped' || pinned === 'not run') return false;
  if (newest === 'skipped') return false;
  return RANK[newest] < RANK[pinned];
}

export function compareHarness(
  pinned: HarnessRun | undefined,
  newest: HarnessRun,
  sameAsPin: boolean,
): HarnessComparison {
  const before = new Map((pinned?.behaviours ?? []).map((run) => [run.behaviour, run]));
  const after = new Map(newest.behaviours.map((run) => [run.behaviour, run]));
  const names = [...new Set([...before.keys(), ...after.keys()])];
  const verdictChanges: VerdictChange[] = [];
  const newFrameTypes: FrameChange[] = [];
  const changedFrameCounts: FrameChange[] = [];
  for (const behaviour of names) {
    const old = before.get(behaviour);
    const now = after.get(behaviour);
    const from = old?.status ?? 'not run';
    const to = now?.status ?? 'not run';
    if (from !== to) {
      verdictChanges.push({
        behaviour,
        pinned: from,
        newest: to,
        regressed: regressed(from, to),
        ...(now?.reason ? { reason: now.reason } : {}),
      });
    }
    const oldCounts = old?.passthrough ?? {};
    for (const [type, count] of Object.entries(now?.passthrough ?? {})) {
      const was = oldCounts[type];
      if (was === undefined) newFrameTypes.push({ behaviour, type, pinned: 0, newest: count });
      else if (was !== count) changedFrameCounts.push({ behaviour, type, pinned: was, newest: count });
    }
    for (const [type, count] of Object.entries(oldCounts)) {
      if (now && now.passthrough[type] === undefined)
        changedFrameCounts.push({ behaviour, type, pinned: count, newest: 0 });
    }
  }
  return {
    id: newest.id,
    packageName: newest.packageName,
    ...(pinned?.version ? { pinned: pinned.version } : {}),
    ...(newest.version ? { newest: newest.version } : {}),
    sameAsPin,
    passedNewest: newest.behaviours.filter((run) => run.status === 'passed').length,
    behaviours: newest.behaviours.length,
    newestRuns: newest.behaviours,
    ...(newest.error ? { error: newest.error } : {}),
    verdictChanges,
    newFrameTypes,
    changedFrameCounts,
  };
}

export function regressionsOf(harnesses: readonly HarnessComparison[]): string[] {
  const out: string[] = [];
  for (const harness of harnesses) {
    if (harness.error) out.push(`${harness.id} ${harness.newest ?? '(newest)'}: could not run: ${harness.error}`);
    for (const change of harness.verdictChanges) {
      if (!change.regressed) continue;
      out.push(
        `${harness.id} ${harness.newest ?? ''} / ${change.behaviour}: ${change.pinned} -> ${change.newest}` +
          (change.reason ? ` (${change.reason})` : ''),
      );
    }
  }
  return out;
}

const dash = (items: readonly string[]) => (items.length > 0 ? items.join(', ') : '-');

function verdictCell(harness: HarnessComparison): string {
  if (harness.error) return 'not run';
  const others = (['limited', 'failed', 'skipped'] as const)
    .map((status) => [status, harness.newestRuns.filter((run) => run.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `, ${count} ${status}`);
  return `${harness.passedNewest}/${harness.behaviours} passed${others.join('')}`;
}

function changesCell(harness: HarnessComparison): string {
  return dash(
    harness.verdictChanges.map((c) => `${c.behaviour}: ${c.pinned}->${c.newest}${c.regressed ? ' (!)' : ''}`),
  );
}

function framesCell(harness: HarnessComparison): string {
  return dash([...new Set(harness.newFrameTypes.map((change) => change.type))]);
}

/** The rows of the harness table: one per harness, the same cells in text and Markdown. */
function harnessRows(report: CanaryReport): string[][] {
  return report.harnesses.map((harness) => [
    harness.id,
    harness.pinned ?? '-',
    harness.newest ?? '-',
    harness.sameAsPin ? 'yes' : 'no',
    verdictCell(harness),
    changesCell(harness),
    framesCell(harness),
  ]);
}

const HEADER = ['harness', 'pinned', 'newest', 'same', 'newest verdicts', 'changed verdicts', 'new passthrough types'];

function protocolLines(protocol: CanaryReport['protocol']): string[] {
  if (!protocol) return ['Codex protocol: not compared'];
  if ('error' in protocol) return [`Codex protocol: not compared (${protocol.error})`];
  const { generateTs: ts, jsonSchema: schema, methods } = protocol;
  return [
    `Codex protocol ${protocol.pinned} -> ${protocol.newest}:`,
    `  generate-ts: ${ts.files} files; added ${dash(ts.added)}; removed ${dash(ts.removed)}; changed ${dash(ts.changed)}`,
    `  generate-json-schema: ${schema.files} files; added ${dash(schema.added)}; removed ${dash(schema.removed)}; changed ${dash(schema.changed)}`,
    `  client requests: added ${dash(methods.clientRequests.added)}; removed ${dash(methods.clientRequests.removed)}`,
    `  server notifications: added ${dash(methods.serverNotifications.added)}; removed ${dash(methods.serverNotifications.removed)}`,
    `  server requests: added ${dash(methods.serverRequests.added)}; removed ${dash(methods.serverRequests.removed)}`,
  ];
}

function buildLines(build: CanaryReport['build']): string[] {
  if (!build) return ['Build against the newest wire types: not checked'];
  if ('error' in build) return [`Build against the newest wire types: not checked (${build.error})`];
  const state = (check: BuildCheck['pinnedWire']) => (check.ok ? 'builds' : `${check.errors} type errors`);
  return [
    `Build (Codex adapter + bridges): pinned wire ${state(build.pinnedWire)}; newest wire ${state(build.newestWire)}; ` +
      `new errors with the newest: ${build.newErrors.length}`,
    ...build.newErrors.map((error) => `  ${error}`),
  ];
}

function packageLines(report: CanaryReport): string[] {
  return report.packages.map(
    (line) =>
      `  ${line.name}: pinned ${line.pinned}, newest ${line.newest}${line.pinned === line.newest ? ' (same)' : ''}` +
      (line.note ? ` - ${line.note}` : ''),
  );
}

/** The one table (and the lines under it) the canary prints. */
export function renderText(report: CanaryReport): string {
  const rows = [HEADER, ...harnessRows(report)];
  const widths = HEADER.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  const table = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  return [
    `Reins canary ${report.date} (newest published versions installed in ${report.cache})`,
    '',
    ...table,
    '',
    'Packages:',
    ...packageLines(report),
    ...(report.successors?.length
      ? ['Successors (the pinned name stopped; follow these):', ...successorLines(report)]
      : []),
    ...Object.entries(report.sdksLoaded ?? {}).map(([name, loaded]) => `  ${name} loaded by the newest run: ${loaded}`),
    '',
    ...protocolLines(report.protocol),
    ...buildLines(report.build),
    '',
    verdictOf(report),
  ].join('\n');
}

const cell = (value: string) => value.replace(/\|/g, '\\|');

/** The same report as Markdown, for docs/drift/<date>.md. */
export function renderMarkdown(report: CanaryReport): string {
  const table = [HEADER, HEADER.map(() => '---'), ...harnessRows(report)].map(
    (row) => `| ${row.map(cell).join(' | ')} |`,
  );
  const details = report.harnesses.flatMap((harness) => {
    const lines = [
      ...harness.verdictChanges.map(
        (c) =>
          `- ${c.behaviour}: ${c.pinned} -> ${c.newest}${c.regressed ? ' (regression)' : ''}${c.reason ? `: ${c.reason}` : ''}`,
      ),
      ...harness.newFrameTypes.map((c) => `- ${c.behaviour}: new passthrough \`${c.type}\` x${c.newest}`),
      ...harness.changedFrameCounts.map(
        (c) => `- ${c.behaviour}: passthrough \`${c.type}\` ${c.pinned} -> ${c.newest}`,
      ),
      ...(harness.error ? [`- not run: ${harness.error}`] : []),
    ];
    return lines.length > 0 ? [`### ${harness.id}`, '', ...lines, ''] : [];
  });
  const passthrough = report.harnesses.flatMap((harness) =>
    harness.newestRuns
      .filter((run) => Object.keys(run.passthrough).length > 0)
      .map(
        (run) =>
          `- ${harness.id} ${harness.newest ?? ''} / ${run.behaviour}: ` +
          Object.entries(run.passthrough)
            .map(([type, count]) => `\`${type}\` x${count}`)
            .join(', '),
      ),
  );
  return [
    `# Drift report ${report.date}`,
    '',
    'Written by `npm run canary`: the newest published version of every harness CLI in harness-clis/ (and of',
    'the Claude Agent SDK and the ACP SDK) against the pinned ones, through the conformance suite inside the',
    'loopback-only namespace. "same" = the newest is the pin, so one run stands for both.',
    '',
    ...table,
    '',
    '## Packages',
    '',
    ...packageLines(report).map((line) => `-${line.slice(1)}`),
    ...(report.successors?.length
      ? ['', '## Successors', '', ...successorLines(report).map((line) => `-${line.slice(1)}`)]
      : []),
    ...Object.entries(report.sdksLoaded ?? {}).map(([name, loaded]) => `- ${name} loaded by the newest run: ${loaded}`),
    '',
    '## Codex protocol and build',
    '',
    '```',
    ...protocolLines(report.protocol),
    ...buildLines(report.build),
    '```',
    '',
    ...(details.length > 0 ? ['## Changes by harness', '', ...details] : []),
    '## Passthrough frame types in the newest run (the baseline for the next canary)',
    '',
    ...(passthrough.length > 0 ? passthrough : ['None.']),
    '',
    '## Verdict',
    '',
    report.regressions.length > 0
      ? report.regressions.map((line) => `- REGRESSION: ${line}`).join('\n')
      : failingOnNewest(report).length > 0
        ? 'No behaviour regressed, but behaviours fail on the newest:'
        : 'No behaviour regressed.',
    ...failingOnNewest(report).map((line) => `- FAILING on the newest: ${line}`),
    '',
  ].join('\n');
}
