// `reins doctor`: every known harness id, whether and where its binary was found, its health and auth,
// and the three-layer capability matrix of the binaries found. Harnesses are checked in parallel, each
// step under a deadline, so one hung CLI cannot stall the report. Ids with no adapter in this build are
// still looked for (each manifest's defaultBinarySpec, harnesses/src/manifests.ts), so a user sees what is installed either way.
import {
  assertNever,
  type BinaryFingerprint,
  CAPABILITY_KEYS,
  type CapabilityLayer,
  type CapabilityMatrix,
  type Discovery,
  HARNESS_IDS,
  type Harness,
  type HarnessId,
  type Health,
  isHarnessId,
} from '@reins/core';
import {
  availableHarnessIds,
  capabilitiesFor,
  createHarness,
  defaultBinarySpec,
  discoverBinary,
  EvidenceStore,
  harnessHealth,
  harnessManifest,
  type SkippedLine,
} from '@reins/harnesses';
import { conformanceTargetIds, harnessBinary } from '@reins/testkit';
import { parseFlags } from '../args.js';
import { type CliIo, EXIT, UsageError, wantsColor } from '../io.js';
import { makeStyle, type Style } from '../render/style.js';
import { REINS_VERSION } from '../version.js';
import { checkPostures, type PostureReport, postureLine } from './doctor-postures.js';

export const DOCTOR_HELP = `Usage: reins doctor [--json] [--timeout <ms>] [harness...]

Lists every harness Reins knows: found or not, path, version, where it was found, health and auth,
and for found binaries the capability matrix (implemented by the adapter / advertised by the harness /
observed by a check on this exact binary). Each found harness also says which of its versions Reins
itself is tested on; a matrix's TESTED VERSIONS are the versions with passing evidence on this machine.

Where Reins looks, in order: REINS_<ID>_BIN (e.g. REINS_CLAUDE_CODE_BIN), PATH, your login shell's PATH,
the usual install folders (npm, Homebrew, bun, volta, nvm, ~/.local/bin, ...). REINS_DISABLE_HARNESS=1
turns discovery off. Evidence is read from $REINS_HOME/evidence.jsonl (default ~/.reins).

Options:
      --json            print one JSON document (shape below) instead of the table
      --timeout <ms>    deadline for each harness's discovery and health checks (default 20000)
  -h, --help            this help

JSON shape (stable; fields are only ever added):
  {
    "reinsVersion": "0.1.0",
    "evidence": { "path": string, "records": number, "skipped": [{ "line": number, "reason": string }] },
    "harnesses": [{
      "id": string,                        // a harness id
      "adapter": boolean,                  // an adapter for this id is in this build
      "reinsTestedVersions": [string],     // the CLI versions Reins' own test suite runs this adapter on
      "discovery": { "found": true, "binary": { "path", "version"?, "sha256", "source" } }
                 | { "found": false, "searched": [string], "hint": string },
      "health": { "status": "ready" | "not_installed" | "unhealthy" | "auth_required",
                  "message"?, "fix"?, "authMethods"?, "binary"? },
      "capabilities"?: { "<capability>": { "implemented", "advertised", "observed", "testedVersions" } },
      "postures"?: { "bypass" | "ask" | "workspace": { "state": "yes" | "no" | "unknown", "reason"?,
                     "holds"?: { "writesConfined": boolean, "toolsNetworkOff": boolean } } }
    }],
    "testCopiesOnly"?: [string]            // not found for you, but pinned test copies sit in harness-clis/
  }
  "source" is one of env, path, login_shell, known_location, explicit. "capabilities" is present for found
  binaries; "postures" for found binaries with an adapter: which postures the harness can take on this
  machine (workspace: Codex's sandbox must confine a probe command, Claude Code needs bwrap and socat on
  PATH, the harnesses Reins confines itself need bwrap to confine a probe command; "holds" says whether
  writes are confined and the tools' network cut: not cut under Reins' confinement). Each layer is
  { "state": "yes" | "no" | "unknown", "how"?, "source"?, "evidence"? }; a capability's "testedVersions" are
  the versions that passed a check of it on this machine (evidence).

Exit code: 0 (the report itself; read "health" for each harness), 2 for bad usage.

Examples:
  reins doctor
  reins doctor codex claude-code
  reins doctor --json | jq '.harnesses[] | select(.health.status == "ready") | .id'`;

export interface DoctorHarness {
  id: HarnessId;
  adapter: boolean;
  /**
   * The CLI versions Reins' own tests run this adapter on (the manifest's pins and previous pins). Not
   * evidence from this machine: that is each capability's `testedVersions` (docs/architecture/contract.md).
   */
  reinsTestedVersions: string[];
  discovery: Discovery;
  health: Health;
  capabilities?: CapabilityMatrix;
  /** Which postures it can take on this machine (found binaries with an adapter). */
  postures?: PostureReport;
}

export interface DoctorReport {
  reinsVersion: string;
  evidence: { path: string; records: number; skipped: SkippedLine[] };
  harnesses: DoctorHarness[];
  /** Harnesses not found for you whose pinned test copy sits in harness-clis/ (for Reins' tests and the demo only). */
  testCopiesOnly?: HarnessId[];
}

/** Whether the checkout's harness-clis/ holds the pinned copy of `id` (`npm run setup` installs them). */
function hasTestCopy(id: HarnessId): boolean {
  if (!conformanceTargetIds().includes(id)) return false;
  try {
    harnessBinary(id as Parameters<typeof harnessBinary>[0]);
    return true;
  } catch {
    return false;
  }
}

class Deadline extends Error {}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Deadline(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function checkHarness(id: HarnessId, io: CliIo, timeoutMs: number, store: EvidenceStore): Promise<DoctorHarness> {
  const { id: _id, adapter, ...checked } = await checkBinary(id, io, timeoutMs, store);
  // Beside the binary's own facts, in this order in the JSON (id, adapter, reinsTestedVersions, discovery...).
  return { id, adapter, reinsTestedVersions: [...(harnessManifest(id)?.testedVersions ?? [])], ...checked };
}

async function checkBinary(
  id: HarnessId,
  io: CliIo,
  timeoutMs: number,
  store: EvidenceStore,
): Promise<Omit<DoctorHarness, 'reinsTestedVersions'>> {
  const adapter = availableHarnessIds().includes(id);
  let discovery: Discovery;
  let health: Health;
  let capabilities: CapabilityMatrix | undefined;
  if (adapter) {
    let harness: Harness;
    try {
      harness = await createHarness(id, { baseEnv: io.env });
    } catch (error) {
      // e.g. the generic acp harness without REINS_ACP_COMMAND: nothing to look for until it is configured.
      const message = messageOf(error);
      return {
        id,
        adapter,
        discovery: { found: false, searched: [], hint: message },
        health: { status: 'not_installed', message },
      };
    }
    // In parallel: health() discovers again, and the runtime caches hashes and version probes per file.
    const [discovered, checked, declared] = await Promise.all([
      withDeadline(harness.discover(), timeoutMs, 'discovery').catch(
        (error: unknown): Discovery => ({ found: false, searched: [], hint: messageOf(error) }),
      ),
      withDeadline(harness.health(), timeoutMs, 'the health check').catch(
        (error: unknown): Health => ({ status: 'unhealthy', message: messageOf(error) }),
      ),
      withDeadline(harness.capabilities(), timeoutMs, 'capabilities').catch(() => undefined),
    ]);
    discovery = discovered;
    health = checked;
    if (!discovery.found || !declared) return { id, adapter, discovery, health };
    capabilities = await withStoredEvidence(declared, id, discovery.binary, store);
    const context = { id, capabilities: declared, binaryPath: discovery.binary.path, env: io.env, timeoutMs };
    const postures = await checkPostures(context);
    return { id, adapter, discovery, health, capabilities, postures };
  }
  const spec = defaultBinarySpec(id);
  if (!spec) {
    const hint = `The ${id} harness runs an Agent Client Protocol command you name; there is no binary to look for.`;
    discovery = { found: false, searched: [], hint };
    return { id, adapter, discovery, health: { status: 'not_installed', message: hint } };
  }
  try {
    const result = await withDeadline(discoverBinary(spec, { env: io.env }), timeoutMs, 'discovery');
    // The report carries the core Discovery shape; candidates stay an internal detail.
    const { candidates: _candidates, probeError: _probeError, ...core } = result;
    discovery = core as Discovery;
    health = await harnessHealth(result);
    if (health.status === 'ready') {
      health = { ...health, message: `No adapter in this build of Reins: auth was not checked.` };
    }
    if (discovery.found) {
      capabilities = await capabilitiesFor({ harness: id, implemented: {}, binary: discovery.binary, store });
    }
  } catch (error) {
    discovery = { found: false, searched: [], hint: messageOf(error) };
    health = { status: 'unhealthy', message: messageOf(error) };
  }
  return { id, adapter, discovery, health, ...(capabilities ? { capabilities } : {}) };
}

/**
 * The adapter says what it implements and what the harness advertises; `observed` and `testedVersions`
 * are read here from the store for the binary just discovered, so the report shows the evidence whatever
 * binary the adapter fingerprinted when it built its matrix.
 */
async function withStoredEvidence(
  declared: CapabilityMatrix,
  id: HarnessId,
  binary: BinaryFingerprint,
  store: EvidenceStore,
): Promise<CapabilityMatrix> {
  const stored = await capabilitiesFor({ harness: id, implemented: {}, binary, store });
  const merged = { ...declared };
  for (const key of CAPABILITY_KEYS) {
    merged[key] = { ...declared[key], observed: stored[key].observed, testedVersions: stored[key].testedVersions };
  }
  return merged;
}

export async function doctorReport(io: CliIo, ids: readonly HarnessId[], timeoutMs: number): Promise<DoctorReport> {
  const store = EvidenceStore.forEnv(io.env);
  const [evidence, harnesses] = await Promise.all([
    store.read().catch((error: unknown) => ({
      path: store.path,
      records: [],
      skipped: [{ line: 0, reason: `unreadable: ${messageOf(error)}` }],
    })),
    Promise.all(ids.map((id) => checkHarness(id, io, timeoutMs, store))),
  ]);
  const testCopiesOnly = harnesses.filter((entry) => !entry.discovery.found && hasTestCopy(entry.id));
  return {
    reinsVersion: REINS_VERSION,
    evidence: { path: evidence.path, records: evidence.records.length, skipped: evidence.skipped },
    harnesses,
    ...(testCopiesOnly.length > 0 ? { testCopiesOnly: testCopiesOnly.map((entry) => entry.id) } : {}),
  };
}

function parseDoctorArgs(argv: string[]) {
  return parseFlags({
    args: argv,
    options: { json: { type: 'boolean' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
}

export async function doctorCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseDoctorArgs(argv);
  if (values.help) {
    io.stdout.write(`${DOCTOR_HELP}\n`);
    return EXIT.completed;
  }
  const timeoutMs = values.timeout === undefined ? 20_000 : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError(`--timeout must be a positive number of milliseconds, got "${values.timeout}".`);
  }
  for (const id of positionals) {
    if (!isHarnessId(id))
      throw new UsageError(`Unknown harness "${id}".`, `Known harnesses: ${HARNESS_IDS.join(', ')}.`);
  }
  const ids = positionals.length > 0 ? (positionals as HarnessId[]) : [...HARNESS_IDS];
  const report = await doctorReport(io, ids, timeoutMs);
  io.stdout.write(
    values.json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctor(report, makeStyle(wantsColor(io))),
  );
  return EXIT.completed;
}

const STATUS_TEXT: Record<Health['status'], string> = {
  ready: 'ready',
  not_installed: 'not installed',
  unhealthy: 'unhealthy',
  auth_required: 'auth required',
};

const SOURCE_TEXT: Record<string, string> = {
  env: 'REINS_*_BIN',
  path: 'PATH',
  login_shell: 'login shell',
  known_location: 'known location',
  explicit: 'explicit',
};

function statusColor(style: Style, status: Health['status']): (text: string) => string {
  switch (status) {
    case 'ready':
      return style.green;
    case 'auth_required':
      return style.yellow;
    case 'unhealthy':
      return style.red;
    case 'not_installed':
      return style.dim;
    default:
      return assertNever(status, 'health status');
  }
}

function layer(value: CapabilityLayer): string {
  if (value.state === 'yes') return value.how ? `yes (${value.how})` : 'yes';
  return value.state === 'no' ? 'no' : '?';
}

/** The versions Reins' own tests run, and whether the binary found is one of them. */
function testedOnLine(versions: readonly string[], found: string | undefined): string {
  if (versions.length === 0) return 'Reins is tested on: no pinned version of this harness';
  const list = `Reins is tested on: ${versions.join(', ')}`;
  if (found === undefined) return list;
  return versions.includes(found) ? `${list} (this binary is one of them)` : `${list} (this binary, ${found}, is not)`;
}

/** Pads plain text, then styles it (escape codes must not count towards the width). */
const cell = (text: string, width: number, paint: (text: string) => string = (t) => t) =>
  paint(text) + ' '.repeat(Math.max(1, width - text.length));

export function renderDoctor(report: DoctorReport, style: Style): string {
  const out: string[] = [];
  out.push(style.bold(`Reins ${report.reinsVersion}: harnesses`), '');
  const widths = [18, 9, 15, 12, 16];
  out.push(
    style.dim(
      ['HARNESS', 'ADAPTER', 'STATUS', 'VERSION', 'FOUND VIA'].map((h, i) => cell(h, widths[i] as number)).join('') +
        'PATH',
    ),
  );
  for (const entry of report.harnesses) {
    const binary = entry.discovery.found ? entry.discovery.binary : undefined;
    out.push(
      cell(entry.id, widths[0] as number, style.bold) +
        cell(entry.adapter ? 'yes' : 'no', widths[1] as number, entry.adapter ? undefined : style.dim) +
        cell(STATUS_TEXT[entry.health.status], widths[2] as number, statusColor(style, entry.health.status)) +
        cell(binary?.version ?? '-', widths[3] as number) +
        cell(binary ? (SOURCE_TEXT[binary.source] ?? binary.source) : '-', widths[4] as number) +
        (binary?.path ?? '-'),
    );
  }
  const notes = report.harnesses.filter(
    (entry) => entry.health.status === 'unhealthy' || entry.health.status === 'auth_required',
  );
  if (notes.length > 0) out.push('');
  for (const entry of notes) {
    const paint = statusColor(style, entry.health.status);
    out.push(`${paint(`${entry.id}: ${STATUS_TEXT[entry.health.status]}`)}: ${entry.health.message ?? ''}`);
    if (entry.health.fix) out.push(`  fix: ${entry.health.fix}`);
  }

  for (const entry of report.harnesses) {
    if (!entry.capabilities || !entry.discovery.found) continue;
    const binary = entry.discovery.binary;
    out.push(
      '',
      style.bold(`${entry.id} ${binary.version ?? '(version unknown)'}`) +
        style.dim(` sha256 ${binary.sha256.slice(0, 12)}`),
    );
    out.push(`  ${testedOnLine(entry.reinsTestedVersions, binary.version)}`);
    if (entry.postures) out.push(`  postures here: ${postureLine(entry.postures)}`);
    if (!entry.adapter) {
      out.push(
        style.dim('  no adapter in this build: nothing is implemented; observed layers come from stored evidence'),
      );
    }
    const rows = CAPABILITY_KEYS.map((key) => {
      const capability = (entry.capabilities as CapabilityMatrix)[key];
      return [
        key,
        layer(capability.implemented),
        layer(capability.advertised),
        layer(capability.observed),
        capability.testedVersions.join(', ') || '-',
      ] as const;
    });
    const headers = ['CAPABILITY', 'IMPLEMENTED', 'ADVERTISED', 'OBSERVED'];
    const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]?.length ?? 0)) + 2);
    const at = (i: number) => widths[i] as number;
    out.push(style.dim(`  ${headers.map((header, i) => cell(header, at(i))).join('')}TESTED VERSIONS`));
    for (const [key, implemented, advertised, observed, tested] of rows) {
      const paint = observed === 'yes' ? style.green : observed === 'no' ? style.red : undefined;
      out.push(
        `  ${cell(key, at(0))}${cell(implemented, at(1))}${cell(advertised, at(2))}${cell(observed, at(3), paint)}${tested}`,
      );
    }
  }

  out.push('');
  const skipped = report.evidence.skipped;
  out.push(
    style.dim(
      `Evidence: ${report.evidence.path}, ${report.evidence.records} record${report.evidence.records === 1 ? '' : 's'}` +
        (skipped.length > 0
          ? `; ${skipped.length} unreadable line(s) skipped (${skipped.map((s) => s.line).join(', ')})`
          : ''),
    ),
  );
  if (report.harnesses.some((entry) => entry.capabilities)) {
    out.push(
      style.dim(
        'TESTED VERSIONS: the versions that passed a check on this machine (`reins conformance -H <id>` adds them).',
      ),
    );
  }
  const missing = report.harnesses.filter((entry) => !entry.discovery.found && defaultBinarySpec(entry.id));
  if (missing.length > 0) {
    out.push(
      style.dim(
        'Not found: install the harness, or set REINS_<ID>_BIN; `reins doctor --json` lists where Reins looked.',
      ),
    );
  }
  if (report.testCopiesOnly) {
    out.push(
      `Found only the pinned test copies in harness-clis/ for ${report.testCopiesOnly.join(', ')}: those are for ` +
        "Reins' tests and `reins demo` (on the scripted model), not for your sessions. Install and sign in to a " +
        'harness yourself (or set REINS_<ID>_BIN to one) to use it with `reins run`.',
    );
  }
  return `${out.join('\n')}\n`;
}
