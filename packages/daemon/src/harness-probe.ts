// harness/list: each offered harness's discovery and health, from the adapters' own discover() and
// health(), all in parallel and each under a deadline, so one hung CLI cannot stall the answer.

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
