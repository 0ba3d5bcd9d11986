// harness/list: each offered harness's discovery and health, from the adapters' own discover() and
// health(), all in parallel and each under a deadline, so one hung CLI cannot stall the answer; and
// the daemon's memory of those answers (ProbeMemory), so a console that asks on every load does not
// start a CLI (`--version`, Codex's app-server for its account check) each time.
import { stat } from 'node:fs/promises';

import type { Discovery, HarnessId, Health } from '@reins/core';
import { type AnyHarnessOptions, createHarness } from '@reins/harnesses';
import type { HarnessListing } from '@reins/protocol';

class Deadline extends Error {}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Deadline(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function flatten(discovery: Discovery): HarnessListing['discovery'] {
  if (!discovery.found) return { found: false, hint: discovery.hint };
  const { path, version, source } = discovery.binary;
  return { found: true, path, ...(version !== undefined ? { version } : {}), source };
}

export async function probeHarness(
  id: HarnessId,
  options: AnyHarnessOptions,
  timeoutMs: number,
): Promise<HarnessListing> {
  let harness: Awaited<ReturnType<typeof createHarness>>;
  try {
    harness = await createHarness(id, options);
  } catch (error) {
    // e.g. the generic acp harness with no command configured
    const message = messageOf(error);
    return {
      id,
      displayName: id,
      discovery: { found: false, hint: message },
      health: { status: 'not_installed', message },
    };
  }
  const [discovery, health] = await Promise.all([
    withDeadline(harness.discover(), timeoutMs, `${id} discovery`).catch(
      (error: unknown): Discovery => ({ found: false, searched: [], hint: messageOf(error) }),
    ),
    withDeadline(harness.health(), timeoutMs, `the ${id} health check`).catch(
      (error: unknown): Health => ({ status: 'unhealthy', message: messageOf(error) }),
    ),
  ]);
  return { id, displayName: harness.displayName, discovery: flatten(discovery), health };
}

/** How long a `ready` answer is reused while its binary is unchanged (ms). */
export const READY_PROBE_TTL_MS = 5 * 60_000;
/** How long any other answer (not installed, unhealthy, signed out) is reused (ms): those change by hand. */
export const UNREADY_PROBE_TTL_MS = 30_000;

interface Remembered {
  listing: HarnessListing;
  /** The binary as found then (path, size, mtime, inode), or 'absent'. */
  binary: string;
  at: number;
}

/** The binary a listing names as it is on disk now; a replaced, rebuilt or removed one reads differently. */
async function binaryStamp(listing: HarnessListing): Promise<string> {
  if (!listing.discovery.found || !listing.discovery.path) return 'absent';
  const path = listing.discovery.path;
  try {
    const seen = await stat(path);
    return `${path}\u0000${seen.size}\u0000${seen.mtimeMs}\u0000${seen.ino}`;
  } catch {
    return `${path}\u0000gone`;
  }
}

/**
 * Each harness's last harness/list answer, for the daemon's life: reused while its binary is the same
 * file (path, size, mtime) and younger than its time to live, probed again otherwise; callers asking
 * together share one probe in flight. Per harness, beside discovery's own memory of `--version`
 * answers per binary: this one also spares the health check (Codex: an app-server and account/read).
 */
export class ProbeMemory {
  private readonly remembered = new Map<HarnessId, Remembered>();
  private readonly asking = new Map<HarnessId, Promise<HarnessListing>>();
  /** Bumped by forget(): an answer begun before it is not remembered. */
  private generation = 0;

  constructor(
    private readonly probe: (id: HarnessId) => Promise<HarnessListing>,
    private readonly now: () => number = Date.now,
  ) {}

  list(ids: readonly HarnessId[]): Promise<HarnessListing[]> {
    return Promise.all(ids.map((id) => this.answer(id)));
  }

  /** The next ask probes `id` again (its sign-in state changed). */
  forget(id: HarnessId): void {
    this.generation++;
    this.remembered.delete(id);
    this.asking.delete(id);
  }

  private answer(id: HarnessId): Promise<HarnessListing> {
    let answer = this.asking.get(id);
    if (!answer) {
      const asked = this.freshOrProbe(id).finally(() => {
        if (this.asking.get(id) === asked) this.asking.delete(id);
      });
      answer = asked;
      this.asking.set(id, answer);
    }
    return answer;
  }

  private async freshOrProbe(id: HarnessId): Promise<HarnessListing> {
    const seen = this.remembered.get(id);
    if (seen) {
      const ttl = seen.listing.health.status === 'ready' ? READY_PROBE_TTL_MS : UNREADY_PROBE_TTL_MS;
      if (this.now() - seen.at < ttl && (await binaryStamp(seen.listing)) === seen.binary) return seen.listing;
    }
    const generation = this.generation;
    const at = this.now();
    const listing = await this.probe(id);
    const binary = await binaryStamp(listing);
    if (generation === this.generation) this.remembered.set(id, { listing, binary, at });
    return listing;
  }
}
