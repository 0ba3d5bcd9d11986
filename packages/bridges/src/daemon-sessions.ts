// The daemon-backed session source: a Harness whose sessions open in a running Reins daemon (which
// keeps warm harness processes) instead of in the bridge's own process. The daemon's sessions already
// are core Sessions (@reins/client's RemoteSession), so this only maps the harness-level questions
// onto the daemon's harness/* methods. See docs/architecture/bridges.md, "Sessions in a daemon".
import type {
  CapabilityMatrix,
  DiscoveredBinary,
  Discovery,
  Harness,
  HarnessId,
  Health,
  Item,
  ModelInfo,
  Session,
  SessionSpec,
  SessionSummary,
} from '@reins/core';

/** The daemon's view of one harness (the `harness/list` entry a bridge needs). */
export interface DaemonHarnessListing {
  id: HarnessId;
  displayName: string;
  discovery: { found: boolean; path?: string; version?: string; hint?: string };
  health: Health;
}

/**
 * What a bridge asks of its daemon connection: @reins/client's ReinsClient has this shape, so the
 * bridges need no client of their own (the CLI connects and passes it in).
 */
export interface DaemonSessions {
  harnesses(): Promise<DaemonHarnessListing[]>;
  capabilities(harness: HarnessId): Promise<CapabilityMatrix>;
  models(harness: HarnessId): Promise<ModelInfo[]>;
  harnessSessions(
    harness: HarnessId,
    options: { cwd?: string; limit?: number; offset?: number },
  ): Promise<SessionSummary[]>;
  history(harness: HarnessId, nativeSessionId: string, options?: { cwd?: string }): Promise<Item[]>;
  createSession(harness: HarnessId, spec: SessionSpec): Promise<Session>;
}

/** The daemon's largest page of harness/sessions (HARNESS_SESSIONS_PAGE.max in @reins/protocol). */
const SESSIONS_PAGE = 500;
/** A bound on the pages asked for one listing: 10 000 conversations is more than any client shows. */
const MAX_PAGES = 20;

/**
 * A Harness of `id` whose every session runs in the daemon behind `daemon`. The daemon's listing
 * (harness/list probes every harness it offers) is asked once, when discovery is first asked for:
 * the bridge asks beside loading its protocol's server, not before it.
 */
export function daemonHarness(daemon: DaemonSessions, harness: { id: HarnessId; displayName: string }): Harness {
  const { id, displayName } = harness;
  let listing: Promise<DaemonHarnessListing | undefined> | undefined;
  const listed = () => {
    listing ??= daemon.harnesses().then((all) => all.find((entry) => entry.id === id));
    return listing;
  };
  const notOffered = `The Reins daemon does not offer ${displayName}; start it with that harness, or run the bridge without --daemon.`;
  return {
    id,
    displayName,
    discover: async () => {
      const found = await listed();
      return found ? discoveryOf(found) : { found: false, searched: [], hint: notOffered };
    },
    health: async () => (await listed())?.health ?? { status: 'not_installed', message: notOffered },
    capabilities: () => daemon.capabilities(id),
    models: () => daemon.models(id),
    listSessions: async ({ cwd }) => {
      const all: SessionSummary[] = [];
      for (let page = 0; page < MAX_PAGES; page++) {
        const got = await daemon.harnessSessions(id, {
          ...(cwd ? { cwd } : {}),
          limit: SESSIONS_PAGE,
          offset: all.length,
        });
        all.push(...got);
        if (got.length < SESSIONS_PAGE) break;
      }
      return all;
    },
    history: (nativeSessionId, options) => daemon.history(id, nativeSessionId, options ?? {}),
    // No `warm`: the daemon keeps its own warm processes (`reins daemon --warm`).
    createSession: (spec) => daemon.createSession(id, spec),
  };
}

function discoveryOf(listing: DaemonHarnessListing): Discovery {
  // The daemon's health carries the fingerprinted binary whenever its discovery found one.
  const binary: DiscoveredBinary | undefined = listing.health.binary;
  if (listing.discovery.found && binary) return { found: true, binary };
  const why = listing.discovery.hint ?? listing.health.message ?? 'it is not installed where the daemon runs';
  return {
    found: false,
    searched: [],
    hint: `The Reins daemon has no ${listing.displayName}: ${why}`,
  };
}
