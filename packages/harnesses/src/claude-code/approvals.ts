// Approvals in posture `ask`: the Agent SDK's `canUseTool` callback becomes a `permission.requested`
// event, and `respondToPermission` (or the deadline, or the end of the turn) settles it. While a
// request waits the stall watchdog is held: a person thinking is not a stalled harness.
import {
  type PermissionDecision,
  type PermissionOption,
  ReinsError,
  type SessionEventStream,
  type SessionStatus,
} from '@reins/core';
import { defaultClassifyTool } from '../protocols/stream-json/index.js';
import type { PermissionResult } from './wire.js';

const HARNESS = 'claude-code';

type SettledBy = 'client' | 'timeout' | 'harness';

export interface ApprovalHost {
  readonly stream: SessionEventStream;
  /** Pauses the stall watchdog; call the result to resume it. */
  holdStallWatchdog(): () => void;
  /** A turn is running (the status goes back to `running` after an answer). */
  turnRunning(): boolean;
  /** Reins' reading of the status (status.ts: used where Claude Code reports no state of its own). */
  inferStatus(status: SessionStatus): void;
  /** The tool call was refused: its result settles as `declined`. */
  declined(toolUseId: string): void;
  /** How long a request waits before it is denied. */
  timeoutMs: number;
}

export class ClaudeApprovals {
  private counter = 0;
  private readonly pending = new Map<string, (decision: PermissionDecision, by: SettledBy) => void>();

  constructor(private readonly host: ApprovalHost) {}

  respond(requestId: string, decision: PermissionDecision): void {
    const settle = this.pending.get(requestId);
    if (!settle) {
      throw new ReinsError(
        'invalid_input',
        `No open permission request "${requestId}" (already answered or expired).`,
        {
          harness: HARNESS,
          operation: 'respondToPermission',
        },
      );
    }
    settle(decision, 'client');
  }

  /** Every open request is denied (the turn was stopped, the session ends). */
  denyAll(by: SettledBy): void {
    for (const settle of [...this.pending.values()]) settle({ behavior: 'deny', message: 'The turn was stopped.' }, by);
  }

  readonly canUseTool = (
    toolName: string,
    input: Record<string, unknown>,
    context: { signal: AbortSignal; toolUseID: string; suggestions?: unknown[] },
  ): Promise<PermissionResult> => {
    const { stream } = this.host;
    const requestId = `perm_${++this.counter}`;
    const kind = defaultClassifyTool(toolName);
    const options: PermissionOption[] = [
      { id: 'allow_once', kind: 'allow_once', label: 'Allow once' },
      ...(context.suggestions && context.suggestions.length > 0
        ? [{ id: 'allow_always', kind: 'allow_always' as const, label: 'Allow for this session' }]
        : []),
      { id: 'reject_once', kind: 'reject_once', label: 'Deny' },
    ];
    stream.emit({
      type: 'permission.requested',
      requestId,
      tool: { kind: kind === 'plan' ? 'other' : kind, name: toolName },
      input,
      itemId: context.toolUseID,
      options,
    });
    this.host.inferStatus('requires_action');
    const release = this.host.holdStallWatchdog();
    return new Promise<PermissionResult>((resolve) => {
      const timer = setTimeout(
        () => settle({ behavior: 'deny', message: 'No answer to the permission request in time.' }, 'timeout'),
        this.host.timeoutMs,
      );
      const onAbort = () => settle({ behavior: 'deny', message: 'The turn was interrupted.' }, 'harness');
      const settle = (decision: PermissionDecision, by: SettledBy) => {
        if (!this.pending.has(requestId)) return;
        this.pending.delete(requestId);
        clearTimeout(timer);
        release();
        context.signal.removeEventListener('abort', onAbort);
        const behavior =
          decision.optionId === 'reject_once'
            ? 'deny'
            : decision.optionId === 'allow_once' || decision.optionId === 'allow_always'
              ? 'allow'
              : decision.behavior;
        const always = decision.optionId === 'allow_always' || decision.scope === 'session';
        const final: PermissionDecision = { ...decision, behavior };
        if (!stream.isClosed) {
          stream.emit({ type: 'permission.resolved', requestId, decision: final, by });
          if (this.host.turnRunning()) this.host.inferStatus('running');
        }
        if (behavior === 'allow') {
          resolve({
            behavior: 'allow',
            updatedInput: input,
            ...(always && context.suggestions ? { updatedPermissions: context.suggestions as never } : {}),
          });
        } else {
          this.host.declined(context.toolUseID);
          resolve({ behavior: 'deny', message: decision.message ?? 'The user denied this tool call.' });
        }
      };
      context.signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(requestId, settle);
    });
  };
}
