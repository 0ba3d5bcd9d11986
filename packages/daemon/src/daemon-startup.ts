// What a daemon with its own store does before it serves: reap the process groups a crashed
// predecessor left and bring every stored session back (dormant or closed), then start the warm
// processes options.warm asks for. Called once by startDaemon (daemon.ts).
import { type Harness, type HarnessId, ReinsError } from '@reins/core';
import type { AnyHarnessOptions } from '@reins/harnesses';
import type { DaemonOptions } from './daemon-options.js';
import type { Logger } from './logger.js';
import { reapProcessGroups } from './processes/reaper.js';
import type { ProcessTracker } from './processes/tracker.js';
import type { HarnessFactory, SessionHost } from './session-host.js';
import type { DaemonStore } from './store/store.js';

/** Reaps what a crashed daemon left running, then brings every stored session back. */
export async function recoverSessions(store: DaemonStore, host: SessionHost, log: Logger): Promise<void> {
  const open = await store.openProcessGroups();
  if (open.length > 0) {
    const report = await reapProcessGroups(open);
    // A store that cannot write (a full disk): a group left open is found settled again next start.
    await Promise.all(report.settled.map((group) => store.endProcessGroup(group.id, Date.now()))).catch((error) =>
      log.warn('could not record reaped process groups as ended', { error: (error as Error).message }),
    );
    for (const killed of report.killed) {
      log.warn('reaped a process group left by a daemon that died', {
        pgid: killed.pgid,
        processes: killed.members.length,
        sessionId: killed.sessionId,
      });
    }
    for (const spared of report.spared) {
      log.info('left a recorded process group alone', { pgid: spared.pgid, reason: spared.reason });
    }
  }
  const restored = await host.restore();
  log.info('store opened', {
    location: store.location,
    dormant: restored.dormant,
    closed: restored.closed,
    reapedGroups: open.length,
  });
}

export interface WarmUpContext {
  options: DaemonOptions;
  /** The harness ids the daemon offers (named in the refusal's list of harnesses that can warm). */
  harnesses: HarnessId[];
  make: HarnessFactory;
  tracker: ProcessTracker;
  log: Logger;
  /** Each harness that keeps warm processes is pushed here (the daemon stops them first on close). */
  warmed: Harness[];
}

/**
 * Starts the warm processes options.warm asks for. A harness without warm starts is refused; one
 * whose processes cannot start now is logged (its sessions start cold, the pool retries on use).
 */
export async function startWarmProcesses(context: WarmUpContext): Promise<void> {
  const { options, make, log } = context;
  const entries = Object.entries(options.warm ?? {}).filter(([, count]) => (count ?? 0) > 0);
  if (entries.length === 0) return;
  const made = await Promise.all(
    entries.map(async ([id, count]) => ({
      id: id as HarnessId,
      count: count as number,
      harness: await make(id as HarnessId, warmHarnessOptions(options, id as HarnessId)),
    })),
  );
  const refused = made.filter((entry) => typeof entry.harness.warm !== 'function').map((entry) => entry.id);
  if (refused.length > 0) {
    const able: HarnessId[] = [];
    for (const id of context.harnesses) {
      const harness = await make(id, options.harnessOptions?.[id] ?? {}).catch(() => undefined);
      if (typeof harness?.warm === 'function') able.push(id);
    }
    throw new ReinsError(
      'unsupported_capability',
      `${refused.join(', ')} ${refused.length === 1 ? 'has' : 'have'} no warm starts yet; warm processes work for: ${able.join(', ') || 'none'}.`,
      { operation: 'warm', data: { field: 'warm', refused, supported: able } },
    );
  }
  await Promise.all(
    made.map(async ({ id, count, harness }) => {
      context.warmed.push(harness);
      try {
        await context.tracker.run(undefined, () => (harness.warm as (count: number) => Promise<void>)(count));
        log.info('warm processes ready', { harness: id, count });
      } catch (error) {
        log.warn('warm processes could not start', {
          harness: id,
          error: ReinsError.from(error, 'harness_unhealthy').message,
        });
      }
    }),
  );
}

/**
 * The options of the Harness that keeps a harness's warm processes: its harness options, with threads
 * opened ahead for the last session's settings (DaemonOptions.warmThread): `warmThread: 'last-session'`,
 * which the adapters that open a session's thread ahead read (Codex) and the others ignore. Only warm()
 * reads it, and the pools are process-wide, so the sessions' own Harnesses need not carry it.
 */
export function warmHarnessOptions(options: DaemonOptions, id: HarnessId): AnyHarnessOptions {
  const own = options.harnessOptions?.[id] ?? {};
  if (options.warmThread === false || own.warmThread !== undefined) return own;
  return { ...own, warmThread: 'last-session' };
}
