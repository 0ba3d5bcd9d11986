// Which session of a (possibly shared) ACP agent process an agent -> client frame belongs to
// (docs/architecture/contract.md, "Warm starts and shared processes"). ACP names the session in
// every session/update and every client request (`params.sessionId`), so routing is by that id:
// - a frame of a registered session goes to it;
// - a frame of a session not registered yet is held (bounded) until it registers: an agent sends a
//   new session's first updates before its session/new answer;
// - a frame of a session that left, or held past the bounds, is dropped and counted;
// - a frame that names no session: extension notifications go to every session (they are about the
//   process), while lines that are no JSON-RPC (or answer no request) go to the one session only
//   while the process has only ever had one, else they are dropped and counted (no session sees a
//   frame that may be another's).
// The router keeps no process and sends nothing: connection.ts hands it frames and delivers.

/** How many frames are held for one session that has not registered yet. */
const HELD_PER_SESSION = 1000;
/** How many not-yet-registered sessions frames are held for. */
const HELD_SESSIONS = 64;
/** How many sessions that left are remembered (so their late frames are dropped, not held). */
const LEFT_REMEMBERED = 1000;

export class SessionRouter<Sink> {
  private readonly sinks = new Map<string, Sink>();
  private readonly held = new Map<string, ((sink: Sink) => void)[]>();
  private readonly left = new Set<string>();
  private registeredEver = 0;
  /** Frames no session could be named for (dropped, never shown to another session). */
  dropped = 0;

  get size(): number {
    return this.sinks.size;
  }

  get all(): Sink[] {
    return [...this.sinks.values()];
  }

  /** Whether a session holds this native id now (a second session on it needs a process of its own). */
  holds(sessionId: string): boolean {
    return this.sinks.has(sessionId);
  }

  /** The session of this id, or undefined (the caller then holds or drops the frame through `route`). */
  sink(sessionId: string): Sink | undefined {
    return this.sinks.get(sessionId);
  }

  /** Registers a session; frames held for it are delivered in order through `deliver`. */
  register(sessionId: string, sink: Sink): ((sink: Sink) => void)[] {
    this.sinks.set(sessionId, sink);
    this.left.delete(sessionId);
    this.registeredEver++;
    const pending = this.held.get(sessionId) ?? [];
    this.held.delete(sessionId);
    return pending;
  }

  unregister(sessionId: string): void {
    if (!this.sinks.delete(sessionId)) return;
    this.held.delete(sessionId);
    this.left.add(sessionId);
    if (this.left.size > LEFT_REMEMBERED) {
      const oldest = this.left.values().next().value as string;
      this.left.delete(oldest);
    }
  }

  /**
   * A frame naming `sessionId`: delivered now when the session is registered, else held for it
   * (bounded), else dropped (it left, or the bounds are full).
   */
  route(sessionId: string, deliver: (sink: Sink) => void): void {
    const sink = this.sinks.get(sessionId);
    if (sink) {
      deliver(sink);
      return;
    }
    if (this.left.has(sessionId)) {
      this.dropped++;
      return;
    }
    let list = this.held.get(sessionId);
    if (!list) {
      if (this.held.size >= HELD_SESSIONS) {
        this.dropped++;
        return;
      }
      list = [];
      this.held.set(sessionId, list);
    }
    if (list.length >= HELD_PER_SESSION) {
      this.dropped++;
      return;
    }
    list.push(deliver);
  }

  /**
   * Who gets a frame that names no session and may be any session's (a line that is no JSON, an
   * answer to no request): the only session, while the process has only ever had one; else nobody
   * (counted).
   */
  strayOwner(): Sink | undefined {
    if (this.registeredEver <= 1 && this.sinks.size === 1) return this.sinks.values().next().value;
    this.dropped++;
    return undefined;
  }
}
