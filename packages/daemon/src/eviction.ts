// Which live sessions to put to sleep (stop their process; they become dormant and wake on the
// next send): those idle for the TTL, then, while more sessions are live than the cap, the least
// recently used. A busy session (running turn, pending approval, background work, a request in
// progress) is never chosen, even if that leaves the daemon over its cap for a while. Pure.
export interface EvictionCandidate {
  sessionId: string;
  /** Has a process (or one is starting). */
  live: boolean;
  /** Undefined: may be evicted; else why not. */
  busyReason: string | undefined;
  lastUsedAt: number;
}

export interface EvictionLimits {
  /** Idle time after which a session sleeps; 0 or Infinity: never by time. */
  idleTtlMs: number;
  /** Most sessions with a process at once; Infinity: no cap. */
  maxLiveSessions: number;
}

export interface Eviction {
  sessionId: string;
  reason: 'idle' | 'lru';
}

export function chooseEvictions(
  candidates: readonly EvictionCandidate[],
  now: number,
  limits: EvictionLimits,
): Eviction[] {
  const live = candidates.filter((candidate) => candidate.live);
  const chosen: Eviction[] = [];
  const taken = new Set<string>();
  if (limits.idleTtlMs > 0 && Number.isFinite(limits.idleTtlMs)) {
    for (const candidate of live) {
      if (candidate.busyReason === undefined && now - candidate.lastUsedAt >= limits.idleTtlMs) {
        chosen.push({ sessionId: candidate.sessionId, reason: 'idle' });
        taken.add(candidate.sessionId);
      }
    }
  }
  let excess = live.length - taken.size - limits.maxLiveSessions;
  if (excess > 0) {
    const idle = live
      .filter((candidate) => candidate.busyReason === undefined && !taken.has(candidate.sessionId))
      .sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const candidate of idle) {
      if (excess <= 0) break;
      chosen.push({ sessionId: candidate.sessionId, reason: 'lru' });
      excess--;
    }
  }
  return chosen;
}
