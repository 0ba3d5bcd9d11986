// The session's `session.status` (docs/architecture/contract.md, "Events": from the harness's own
// signal where it has one).
//
// Claude Code 2.1.332 reports its own state: every change comes as `system/session_state_changed
// {state: running | idle | requires_action}` (handed on by the process bridge, process-bridge.ts). Its
// `idle` comes only once the turn's result is out AND its background agents are done (the Agent SDK
// 0.3.332 calls it the authoritative turn-over signal): a main turn's `result` while a background
// subagent works, and the turn Claude Code then starts by itself, all stay `running`; `requires_action`
// comes right before its can_use_tool request and `running` right after the answer. From the first
// such frame on, the status is the harness's alone (the one inferred `running` of the first send
// comes before it). Its initialize answer also names a `session_state`, but only the frames are
// trusted: were they ever not handed on, the inference goes on instead of the status freezing.
//
// Claude Code 2.1.197 has no such frame: there Reins infers the status, `running` from send to
// `result` and while background tasks live, `requires_action` while a permission request waits.
import { type EmitMeta, isRecord, type SessionStatus } from '@reins/core';

const STATUSES: readonly SessionStatus[] = ['idle', 'running', 'requires_action'];

/** A state Claude Code named, as a session status; undefined for anything else. */
export function statusOf(state: unknown): SessionStatus | undefined {
  return STATUSES.find((status) => status === state);
}

/** The state in a `system/session_state_changed` frame (2.1.332); undefined for any other frame. */
export function harnessStateOf(frame: unknown): SessionStatus | undefined {
  if (!isRecord(frame) || frame.type !== 'system' || frame.subtype !== 'session_state_changed') return undefined;
  return statusOf(frame.state);
}

export class ClaudeStatus {
  /** Claude Code sent its own state (2.1.332); never on 2.1.197. */
  private reported = false;

  constructor(private readonly emit: (status: SessionStatus, meta: EmitMeta) => void) {}

  /** True when the CLI reports its own state: Reins' inferences are not used. */
  get fromHarness(): boolean {
    return this.reported;
  }

  /** Claude Code's own state change: the session's status. */
  harness(status: SessionStatus, meta: EmitMeta): void {
    this.reported = true;
    this.emit(status, meta);
  }

  /** Reins' own reading (a turn began or ended, the background level, an approval): only where the CLI reports nothing. */
  inferred(status: SessionStatus, meta: EmitMeta = {}): void {
    if (!this.reported) this.emit(status, meta);
  }
}
