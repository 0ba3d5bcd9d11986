// `reins conformance -H <id>`: runs the conformance suite against the harness binary this machine
// would use (discovery), on the embedded scripted model, inside a loopback-only namespace, prints
// each behaviour with its reason, and records the evidence that turns `observed` capabilities on
// for exactly this binary (path + version + sha256).
import { dirname } from 'node:path';
import { type CapabilityKey, HARNESS_IDS, type HarnessId, isHarnessId } from '@reins/core';
import { createHarness, EvidenceStore, type StoredEvidence } from '@reins/harnesses';
import {
  BEHAVIOURS,
  type BehaviourResult,
  conformanceTarget,
  conformanceTargetIds,
  type HarnessBinary,
} from '@reins/testkit';
import { parseFlags } from '../args.js';
import { runHermetically } from '../hermetic.js';
import { type CliIo, EXIT, UsageError, wantsColor } from '../io.js';
import { makeStyle } from '../render/style.js';
import { wrap, wrapIndented } from '../render/wrap.js';
import { REINS_VERSION } from '../version.js';
import { runConformanceCleaningUp } from './conformance-cleanup.js';

export const CONFORMANCE_HELP = `Usage: reins conformance -H <harness> [--only <behaviour>,...] [--json]

Runs Reins' conformance suite against the harness binary installed on this machine (found the way
\`reins doctor\` finds it), on the embedded scripted model server, inside a loopback-only network
namespace: no tokens are spent and nothing leaves the machine. Each behaviour prints pass, fail or
skip with the reason, and the results are stored as evidence (under $REINS_HOME or ~/.reins) so that
\`reins doctor\` shows which capabilities were observed for this exact binary.

${wrap(`Behaviours: ${BEHAVIOURS.map((b) => b.name).join(', ')}.`, 100).join('\n')}

Options:
  -H, --harness <id>   ${wrapIndented(conformanceTargetIds().join(', '), 78, 23)}
      --only <names>   run only these behaviours (comma-separated)
      --json           one JSON object per behaviour, then a summary
  -h, --help           this help

Exit codes: 0 every behaviour passed or was skipped, 1 a behaviour failed, 2 bad usage.`;

export async function conformanceCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    options: {
      harness: { type: 'string', short: 'H' },
      only: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    io.stdout.write(`${CONFORMANCE_HELP}\n`);
    return EXIT.completed;
  }
  if (positionals.length > 0) throw new UsageError(`conformance takes no arguments (got "${positionals.join(' ')}").`);
  const id = values.harness;
  if (!id || !isHarnessId(id)) {
    throw new UsageError(
      id ? `Unknown harness "${id}".` : 'Choose a harness with -H <harness>.',
      `Known: ${HARNESS_IDS.join(', ')}.`,
    );
  }
  if (!conformanceTargetIds().includes(id)) {
    throw new UsageError(
      `The conformance suite cannot drive ${id} on the scripted model yet.`,
      `It can: ${conformanceTargetIds().join(', ')}.`,
    );
  }
  const only = values.only?.split(',').map((name) => name.trim());
  const unknown = only?.filter((name) => !BEHAVIOURS.some((b) => b.name === name)) ?? [];
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown behaviour ${unknown.map((n) => `"${n}"`).join(', ')}.`,
      `Behaviours: ${BEHAVIOURS.map((b) => b.name).join(', ')}.`,
    );
  }

  const outside = await runHermetically('conformance', argv, io);
  if (outside !== undefined) return outside;

  // The binary this machine would use, found as a session would find it.
  const discovery = await (await createHarness(id)).discover();
  if (!discovery.found) throw new UsageError(`${id} is not installed: ${discovery.hint}`);
  const found = discovery.binary;
  const binary: HarnessBinary = {
    id: id as HarnessBinary['id'],
    packageName: '',
    version: found.version ?? 'unknown',
    command: found.path,
    args: [],
    // A Node-script CLI finds `node` through PATH: the one running Reins.
    nodePath: process.execPath,
    pathDirs: [dirname(found.path)],
  };

  const style = makeStyle(wantsColor(io));
  if (!values.json) io.stdout.write(style.dim(`conformance: ${id} ${found.version ?? ''} at ${found.path}\n`));
  const print = (result: BehaviourResult) => {
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ harness: id, ...result })}\n`);
      return;
    }
    const mark = {
      passed: style.green('✓'),
      failed: style.red('✗'),
      limited: style.yellow('◐'),
      skipped: style.yellow('○'),
    }[result.status];
    const reason = result.reason ? ` ${style.dim(`— ${result.reason.split('\n')[0]}`)}` : '';
    io.stdout.write(`${mark} ${result.behaviour} ${style.dim(`${(result.durationMs / 1000).toFixed(1)}s`)}${reason}\n`);
  };
  // SIGINT, SIGTERM or SIGHUP: the running behaviour's sessions are closed and its folder removed (exit 128 + n).
  const results = await runConformanceCleaningUp(conformanceTarget(id as HarnessId, { binary }), {
    ...(only ? { only } : {}),
    onResult: print,
  });

  const records = evidenceFrom(results, id as HarnessId, found);
  const store = EvidenceStore.forEnv(io.env);
  await store.append(records);
  const count = (status: BehaviourResult['status']) => results.filter((r) => r.status === status).length;
  const [passed, failed, limited] = [count('passed'), count('failed'), count('limited')];
  const summary = {
    passed,
    failed,
    limited,
    skipped: count('skipped'),
    evidence: { path: store.path, records: records.length },
  };
  if (values.json) io.stdout.write(`${JSON.stringify({ harness: id, summary })}\n`);
  else
    io.stdout.write(
      `${passed} passed, ${failed} failed, ${limited} limited by the harness, ${summary.skipped} skipped; ${records.length} evidence records in ${store.path}\n`,
    );
  return failed > 0 ? EXIT.failed : EXIT.completed;
}

/** One record per capability a passing behaviour showed; a failing behaviour records its own capability as not observed. */
function evidenceFrom(
  results: BehaviourResult[],
  harness: HarnessId,
  binary: { path: string; version?: string; sha256: string },
): StoredEvidence[] {
  const at = Date.now();
  const fingerprint = {
    path: binary.path,
    sha256: binary.sha256,
    ...(binary.version ? { version: binary.version } : {}),
  };
  const record = (check: string, capability: CapabilityKey, passed: boolean, detail?: string): StoredEvidence => ({
    harness,
    check,
    capability,
    passed,
    binary: fingerprint,
    ...(binary.version ? { harnessVersion: binary.version } : {}),
    reinsVersion: REINS_VERSION,
    at,
    ...(detail ? { detail: detail.slice(0, 500) } : {}),
  });
  return results.flatMap((result) => {
    if (result.status === 'passed')
      return result.demonstrated.map((capability) => record(result.behaviour, capability, true));
    const capability = BEHAVIOURS.find((b) => b.name === result.behaviour)?.evidences;
    if ((result.status === 'failed' || result.status === 'limited') && capability) {
      return [record(result.behaviour, capability, false, result.reason)];
    }
    return [];
  });
}
