// `npm run canary`: finds the next CLI break before users do. Installs the newest published version of
// every pinned harness CLI (and of the Agent SDK and the ACP SDK) into a cache outside the repository, runs
// the conformance suite on each inside the loopback-only namespace, compares verdicts and passthrough frame
// types with the pinned baseline, diffs Codex's generated protocol, checks the adapters still build against
// the newest wire types, and prints one table (plus a JSON report). Exit 1 when a behaviour regresses.
// Not in CI: its inputs (the registry) change under it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { conformanceTargetIds } from '../conformance/targets.js';
import { type HarnessId, harnessBinary, harnessPackageName } from '../hermetic/binaries.js';
import { checkBuild } from './build-check.js';
import { type CacheInstall, harnessPackages, installNewest, readCache, SDKS } from './install.js';
import { codexProtocolDiff } from './protocol.js';
import {
  type CanaryReport,
  compareHarness,
  type HarnessRun,
  regressionsOf,
  renderMarkdown,
  renderText,
  type SuiteRun,
} from './report.js';
import { findSuccessors, registryFetch, type Successor } from './successors.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const BIN = join(REPO, 'packages/testkit/bin');

export const CANARY_HELP = `Usage: npm run canary -- [options]

Installs the newest published harness CLIs (and Agent SDK, ACP SDK) into a cache outside the repository,
runs the conformance suite on each inside the loopback-only namespace, and compares with the pins.

Options:
  --cache <dir>      the cache (default ~/.cache/reins-canary)
  --only <ids>       only these harnesses (comma-separated)
  --skip-install     use the cache as it is (no registry access)
  --out <dir>        also write <dir>/<date>.md and <date>.json (e.g. docs/drift)
  --json             print the JSON report instead of the table
  -h, --help         this help

Exit codes: 0 no behaviour regressed, 1 a behaviour regressed, 2 the canary itself failed.`;

const log = (line: string) => process.stderr.write(`canary: ${line}\n`);

/** One suite pass in its own process inside the namespace (bin/canary.mjs --suite). */
function runSuiteInNamespace(root: string, ids: readonly HarnessId[], scratch: string, sdkRoot?: string): SuiteRun {
  const out = join(scratch, `suite-${Date.now()}.json`);
  const args = [join(BIN, 'canary.mjs'), '--suite', '--root', root, '--ids', ids.join(','), '--out', out];
  if (sdkRoot) args.push('--sdk-root', sdkRoot);
  execFileSync(process.execPath, [join(BIN, 'hermetic.mjs'), '--', process.execPath, ...args], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return JSON.parse(readFileSync(out, 'utf8')) as SuiteRun;
}

/** Same CLI version as the pin, and every SDK it loads unchanged: the newest run stands for the pinned one. */
function sameAsPin(id: HarnessId, install: CacheInstall): boolean {
  const line = (name: string) => install.packages.find((entry) => entry.name === name);
  const cli = line(harnessPackageName(id));
  if (!cli || cli.pinned !== cli.newest) return false;
  return Object.entries(SDKS).every(([sdk, users]) => {
    if (!users.includes(id)) return true;
    const entry = line(sdk);
    return entry !== undefined && entry.pinned === entry.newest;
  });
}

function protocolAndBuild(install: CacheInstall, scratch: string): Pick<CanaryReport, 'protocol' | 'build'> {
  let newestWire: string;
  let protocol: CanaryReport['protocol'];
  try {
    const result = codexProtocolDiff(harnessBinary('codex'), harnessBinary('codex', install.dir), {
      repo: REPO,
      scratch,
    });
    protocol = result.diff;
    newestWire = result.newestWire;
  } catch (error) {
    return { protocol: { error: error instanceof Error ? error.message : String(error) } };
  }
  try {
    const build = checkBuild({
      repo: REPO,
      scratch,
      newestWire,
      newestModules: join(install.dir, 'node_modules'),
      sdks: Object.keys(SDKS),
    });
    return { protocol, build };
  } catch (error) {
    return { protocol, build: { error: error instanceof Error ? error.message : String(error) } };
  }
}

/** Successors of the pinned CLI packages, from the configured npm registry's documents of those packages. */
async function pinnedSuccessors(): Promise<Successor[]> {
  const registry = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
  try {
    return await findSuccessors(Object.keys(harnessPackages(REPO)), registryFetch(registry));
  } catch (error) {
    log(`could not look for successors: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      cache: { type: 'string' },
      only: { type: 'string' },
      'skip-install': { type: 'boolean' },
      out: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${CANARY_HELP}\n`);
    return 0;
  }
  const cache = resolve(values.cache ?? join(homedir(), '.cache', 'reins-canary'));
  if (`${cache}/`.startsWith(`${REPO}/`)) {
    throw new Error(`The canary's cache must be outside the repository (${cache} is inside ${REPO}).`);
  }
  const known = conformanceTargetIds() as HarnessId[];
  const ids = values.only ? (values.only.split(',').map((id) => id.trim()) as HarnessId[]) : known;
  const unknown = ids.filter((id) => !known.includes(id));
  if (unknown.length > 0)
    throw new Error(`No conformance target for ${unknown.join(', ')}; known: ${known.join(', ')}.`);

  const install = values['skip-install'] ? readCache(REPO, cache) : installNewest(REPO, cache, log);
  const successors = values['skip-install'] ? [] : await pinnedSuccessors();
  const scratch = mkdtempSync(join(cache, 'run-'));
  try {
    log(`conformance on the newest: ${ids.join(', ')}`);
    const newest = runSuiteInNamespace(install.dir, ids, scratch, install.dir);
    const changed = ids.filter((id) => !sameAsPin(id, install));
    log(changed.length > 0 ? `conformance on the pins of: ${changed.join(', ')}` : 'every newest version is the pin');
    const pinned: SuiteRun =
      changed.length > 0
        ? runSuiteInNamespace(join(REPO, 'harness-clis'), changed, scratch)
        : { root: '', harnesses: [] };
    const byId = (run: SuiteRun) => new Map(run.harnesses.map((harness) => [harness.id, harness]));
    const pinnedById = byId(pinned);
    const harnesses = newest.harnesses.map((run: HarnessRun) => {
      const same = sameAsPin(run.id as HarnessId, install);
      return compareHarness(same ? run : pinnedById.get(run.id), run, same);
    });
    log('Codex protocol and build check');
    const report: CanaryReport = {
      date: new Date().toISOString().slice(0, 10),
      // Home-relative, so a committed report names no machine.
      cache: cache.startsWith(`${homedir()}/`) ? `~/${cache.slice(homedir().length + 1)}` : cache,
      packages: install.packages,
      ...(newest.sdks ? { sdksLoaded: newest.sdks } : {}),
      harnesses,
      ...protocolAndBuild(install, scratch),
      regressions: regressionsOf(harnesses),
      ...(successors.length > 0 ? { successors } : {}),
    };
    const json = `${JSON.stringify(report, null, 2)}\n`;
    const jsonPath = join(cache, 'last-report.json');
    writeFileSync(jsonPath, json);
    if (values.out) {
      const dir = resolve(values.out);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${report.date}.json`), json);
      writeFileSync(join(dir, `${report.date}.md`), renderMarkdown(report));
      log(`wrote ${join(dir, `${report.date}.md`)} and .json`);
    }
    process.stdout.write(values.json ? json : `${renderText(report)}\n\nJSON report: ${jsonPath}\n`);
    return report.regressions.length > 0 ? 1 : 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
