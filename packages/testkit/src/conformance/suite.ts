// Runs the behaviours against one target, each in isolation (fresh model server script, fresh
// session), and reports pass / fail / skipped with the reason and the capabilities it showed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CapabilityKey, Harness, SessionSpec } from '@reins/core';
import { type ModelServer, startModelServer } from '../model-server/index.js';
import { NotApplicableHere } from './behaviour-kit.js';
import { BEHAVIOURS, type Behaviour, HarnessLimitation } from './behaviours.js';
import { SessionRecorder } from './recorder.js';
import type { ConformanceTarget } from './target.js';

export interface BehaviourResult {
  behaviour: string;
  /**
   * `limited`: the harness cannot do it, Reins said so honestly, and the target lists it as a known
   * limitation of that harness. Demonstrates nothing; records the capability as not observed.
   */
  status: 'passed' | 'failed' | 'skipped' | 'limited';
  reason?: string;
  /** Capabilities this run demonstrated (only when passed). */
  demonstrated: CapabilityKey[];
  durationMs: number;
}

export interface ConformanceOptions {
  /** Run only these behaviours (names). */
  only?: string[];
  onResult?: (result: BehaviourResult) => void;
  behaviours?: Behaviour[];
}

export async function runConformance(
  target: ConformanceTarget,
  options: ConformanceOptions = {},
): Promise<BehaviourResult[]> {
  const results: BehaviourResult[] = [];
  const behaviours = (options.behaviours ?? BEHAVIOURS).filter((b) => !options.only || options.only.includes(b.name));
  for (const behaviour of behaviours) {
    const result = await runOne(target, behaviour);
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

/**
 * What a target's adapter implements, asked once per target: it does not change between behaviours, and
 * asking costs an ACP agent a start of its own (capabilities() reads the agent's initialize answer), as much
 * as the behaviour's own session. Known, a behaviour that needs what is not implemented skips before set-up.
 */
const implementedByTarget = new WeakMap<ConformanceTarget, ReadonlySet<CapabilityKey>>();

async function implementedOf(target: ConformanceTarget, harness: Harness): Promise<ReadonlySet<CapabilityKey>> {
  const known = implementedByTarget.get(target);
  if (known) return known;
  const matrix = await harness.capabilities();
  const implemented = new Set(
    (Object.keys(matrix) as CapabilityKey[]).filter((key) => matrix[key].implemented.state === 'yes'),
  );
  implementedByTarget.set(target, implemented);
  return implemented;
}

const missingOf = (behaviour: Behaviour, implemented: ReadonlySet<CapabilityKey>) =>
  behaviour.requires?.filter((key) => !implemented.has(key)) ?? [];
const notImplemented = (missing: CapabilityKey[]) => `the adapter does not implement ${missing.join(', ')}`;

async function runOne(target: ConformanceTarget, behaviour: Behaviour): Promise<BehaviourResult> {
  const started = Date.now();
  const finish = (status: BehaviourResult['status'], reason?: string, demonstrated: CapabilityKey[] = []) => ({
    behaviour: behaviour.name,
    status,
    demonstrated,
    durationMs: Date.now() - started,
    ...(reason ? { reason } : {}),
  });
  const skip = target.notApplicable?.[behaviour.name];
  if (skip) return finish('skipped', skip);
  const known = implementedByTarget.get(target);
  const missingKnown = known ? missingOf(behaviour, known) : [];
  if (missingKnown.length > 0) return finish('skipped', notImplemented(missingKnown));
  const workdir = await mkdtemp(join(tmpdir(), `reins-conformance-${target.id}-`));
  let server: ModelServer | undefined;
  const recorders: SessionRecorder[] = [];
  try {
    server = await startModelServer();
    const setup = await target.setup(server, workdir);
    try {
      const implemented = await implementedOf(target, setup.harness);
      const missing = missingOf(behaviour, implemented);
      if (missing.length > 0) return finish('skipped', notImplemented(missing));
      const workspace = join(workdir, 'workspace');
      await import('node:fs/promises').then((fs) => fs.mkdir(workspace, { recursive: true }));
      const demonstrated = await behaviour.run({
        server,
        setup,
        workdir: workspace,
        implemented,
        open: async (spec: Partial<SessionSpec> = {}) => {
          const session = await setup.harness.createSession({
            cwd: workspace,
            model: setup.models.primary,
            ...setup.spec,
            ...spec,
          });
          const recorder = new SessionRecorder(session);
          recorders.push(recorder);
          return recorder;
        },
      });
      return finish('passed', undefined, demonstrated);
    } finally {
      for (const recorder of recorders) await recorder.session.close().catch(() => {});
      await setup.dispose?.();
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof NotApplicableHere) return finish('skipped', reason);
    if (error instanceof HarnessLimitation) {
      const known = target.knownLimitations?.[behaviour.name];
      return known
        ? finish('limited', `${known} (${reason})`)
        : finish('failed', `${reason}: a harness limitation, but not a known one for ${target.id}`);
    }
    return finish('failed', reason);
  } finally {
    await server?.close();
    await rm(workdir, { recursive: true, force: true }).catch(() => {});
  }
}
