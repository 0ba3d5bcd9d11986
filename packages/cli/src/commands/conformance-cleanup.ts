// What `reins demo` and `reins conformance` undo when a signal stops them (signals.ts,
// cleanUpOnSignals): a conformance target wrapped so that everything its setup makes is known — the
// sessions its harness creates, the setup itself (temp homes, gateways) and the folder it was given
// (`reins-demo-*`, `reins-conformance-*`) — and is closed, disposed and removed on the signal.
// Without it the process died at once: harness processes lived on until their stdin closed and the
// temporary folders stayed behind.
import { rm } from 'node:fs/promises';
import type { Session } from '@reins/core';
import {
  type BehaviourResult,
  type ConformanceOptions,
  type ConformanceSetup,
  type ConformanceTarget,
  runConformance,
} from '@reins/testkit';
import { cleanUpOnSignals, type SignalCleanups } from '../signals.js';

/** runConformance, and on SIGINT, SIGTERM or SIGHUP the running behaviour's undoing, then exit 128 + n. */
export async function runConformanceCleaningUp(
  target: ConformanceTarget,
  options: ConformanceOptions,
): Promise<BehaviourResult[]> {
  const cleanups = cleanUpOnSignals();
  try {
    return await runConformance(cleaningUpOnSignals(target, cleanups), options);
  } finally {
    await cleanups.dispose();
  }
}

/** `target`, whose every setup registers its undoing with `cleanups` (kept until the command ends). */
export function cleaningUpOnSignals(target: ConformanceTarget, cleanups: SignalCleanups): ConformanceTarget {
  return {
    ...target,
    async setup(server, workdir) {
      const sessions = new Set<Session>();
      let setup: ConformanceSetup | undefined;
      let disposing: Promise<void> | undefined;
      // Once, whoever comes first: the suite's (or the demo's) own end, or the signal.
      const dispose = () => {
        disposing ??= setup?.dispose?.() ?? Promise.resolve();
        sessions.clear(); // closed by now (the suite and the demo close theirs first): hold them no longer
        return disposing;
      };
      // Registered before the setup starts: a signal during it still removes the folder.
      cleanups.add(async () => {
        await Promise.all([...sessions].map((session) => session.close().catch(() => {})));
        await dispose().catch(() => {});
        await rm(workdir, { recursive: true, force: true });
      });
      setup = await target.setup(server, workdir);
      const harness = setup.harness;
      const createSession = harness.createSession.bind(harness);
      harness.createSession = async (spec) => {
        const session = await createSession(spec);
        sessions.add(session);
        return session;
      };
      return { ...setup, dispose };
    },
  };
}
