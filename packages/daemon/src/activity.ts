// What a session is doing right now, read off its published events: the harness's own status, a
// running turn, permission requests waiting for an answer, and background work (items a harness
// runs outside any turn, such as Claude Code's background subagents: turnId null). A session with
// any of these is busy and is never evicted. Pure bookkeeping, reset when a new process starts.
import type { ReinsEvent, SessionStatus } from '@reins/core';

export class Activity {
  status: SessionStatus = 'idle';
  private turn: string | null = null;
  // Made at the first permission request or background item, dropped at reset: an idle or
  // dormant session holds none (docs/architecture/daemon.md, "Memory of a dormant session").
  private permissions: Set<string> | undefined;
  private background: Set<string> | undefined;

  observe(event: ReinsEvent): void {
    switch (event.type) {
      case 'session.status':
        this.status = event.status;
        break;
      case 'turn.started':
        this.turn = event.turnId;
        break;
      case 'turn.completed':
        this.turn = null;
        break;
      case 'permission.requested':
        this.permissions ??= new Set();
        this.permissions.add(event.requestId);
        break;
      case 'permission.resolved':
        this.permissions?.delete(event.requestId);
        break;
      case 'item.started':
        if (event.turnId !== null) break;
        this.background ??= new Set();
        this.background.add(event.item.id);
        break;
      case 'item.completed':
        this.background?.delete(event.item.id);
        break;
      default:
        break;
    }
  }

  /** Why the session must not be evicted now, or undefined when it may be. */
  get busyReason(): string | undefined {
    if (this.turn !== null) return `turn ${this.turn} is running`;
    const permissions = this.permissions?.size ?? 0;
    if (permissions > 0) return `${permissions} permission request(s) wait for an answer`;
    const background = this.background?.size ?? 0;
    if (background > 0) return `${background} background item(s) are running`;
    if (this.status !== 'idle') return `the harness reports ${this.status}`;
    return undefined;
  }

  reset(): void {
    this.status = 'idle';
    this.turn = null;
    this.permissions = undefined;
    this.background = undefined;
  }
}
