// Every session the daemon holds, kept live: session/list gives the listings; status/snapshot
// (right after initialize and every 15 s; authoritative) brings each one's state, lastSeq and last
// activity and drops the ones the daemon no longer has; sessions/changed says when one was
// created, updated, closed or deleted. What a notification cannot say by itself (a new session's
// title, cwd, model) makes the directory stale: the caller lists the sessions again.
import type { SessionActivity, SessionListing, SessionsChangedParams, StatusSnapshotParams } from '@reins/client';

export interface SessionFilter {
  harness?: string;
  /** A cwd: sessions in it or below it. */
  workspace?: string;
  /** Words that must all appear in the title, cwd, harness, model or id. */
  text?: string;
}

export class SessionDirectory {
  private listings = new Map<string, SessionListing>();
  private sorted: SessionListing[] | undefined;
  /** True when something changed that only a new session/list can tell. */
  stale = true;

  /** A fresh session/list answer replaces everything. */
  replaceAll(listings: SessionListing[]): void {
    this.listings = new Map(listings.map((listing) => [listing.sessionId, listing]));
    this.sorted = undefined;
    this.stale = false;
  }

  /** The authoritative state of every session; unknown ids make the directory stale. */
  applySnapshot(snapshot: StatusSnapshotParams): void {
    const seen = new Set<string>();
    const next = new Map<string, SessionListing>();
    for (const activity of snapshot.sessions) {
      seen.add(activity.sessionId);
      const listing = this.listings.get(activity.sessionId);
      if (listing) next.set(activity.sessionId, withActivity(listing, activity));
      else this.stale = true;
    }
    this.listings = next;
    this.sorted = undefined;
  }

  applyChange(change: SessionsChangedParams): void {
    if (change.change === 'deleted') {
      this.listings.delete(change.sessionId);
      this.sorted = undefined;
      return;
    }
    const listing = this.listings.get(change.sessionId);
    if (listing && change.change === 'closed') {
      this.listings.set(change.sessionId, { ...listing, status: 'closed' });
      this.sorted = undefined;
    }
    // created, updated (title, model, state...): only session/list has the new fields.
    this.stale = true;
  }

  get(sessionId: string): SessionListing | undefined {
    return this.listings.get(sessionId);
  }

  /** Newest activity first. */
  all(): SessionListing[] {
    this.sorted ??= [...this.listings.values()].sort(
      (a, b) => b.updatedAt - a.updatedAt || a.sessionId.localeCompare(b.sessionId),
    );
    return this.sorted;
  }

  filtered(filter: SessionFilter): SessionListing[] {
    const words = (filter.text ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return this.all().filter((listing) => {
      if (filter.harness && listing.harness !== filter.harness) return false;
      if (filter.workspace && !within(listing.cwd, filter.workspace)) return false;
      if (words.length > 0) {
        const haystack = [listing.title, listing.cwd, listing.harness, listing.model, listing.sessionId]
          .filter(Boolean)
          .join(' ')
          .toLowerCase();
        if (!words.every((word) => haystack.includes(word))) return false;
      }
      return true;
    });
  }

  /** Harness ids with at least one session, for the filter. */
  harnesses(): string[] {
    return [...new Set(this.all().map((listing) => listing.harness))].sort();
  }

  /** Working directories with at least one session, most recently active first. */
  workspaces(): string[] {
    return [...new Set(this.all().map((listing) => listing.cwd))];
  }
}

function withActivity(listing: SessionListing, activity: SessionActivity): SessionListing {
  if (
    listing.status === activity.status &&
    listing.lastSeq === activity.lastSeq &&
    listing.updatedAt === activity.updatedAt
  ) {
    return listing;
  }
  return { ...listing, status: activity.status, lastSeq: activity.lastSeq, updatedAt: activity.updatedAt };
}

/** True when `path` is `folder` or inside it (plain string logic: the browser has no path module). */
export function within(path: string, folder: string): boolean {
  const trimmed = folder.replace(/[\\/]+$/, '');
  if (trimmed === '') return true;
  return path === trimmed || path.startsWith(`${trimmed}/`) || path.startsWith(`${trimmed}\\`);
}
