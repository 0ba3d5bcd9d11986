// Codex approvals (posture "ask"): the server requests `item/commandExecution/requestApproval` and
// `item/fileChange/requestApproval` become `permission.requested` events, and the caller's decision
// goes back as Codex's decision string. This module owns the open requests, their deadline, Codex
// withdrawing one (serverRequest/resolved), and the stall-watchdog hold while one waits (a turn that
// waits for a person is not stalled). A request Reins has no event for stays visible (passthrough)
// and is refused, so Codex never waits on an answer that cannot come.
import {
  isRecord,
  type PermissionDecision,
  PermissionDecisionSchema,
  type PermissionOption,
  ReinsError,
  type SessionEventStream,
  type ToolInfo,
} from '@reins/core';
import type { JsonRpcId } from '../runtime/json-rpc.js';
import { HARNESS, nativeFrame } from './connection.js';

export const DEFAULT_PERMISSION_TIMEOUT_MS = 10 * 60_000;

/** What the approvals need from their session. */
export interface ApprovalHost {
  readonly stream: SessionEventStream;
  /** Pauses the stall watchdog; the result resumes it. */
  holdStallWatchdog(): () => void;
}

type Resolver = (decision: PermissionDecision, by: 'client' | 'timeout' | 'harness') => void;

/** A known approval request, read defensively (a newer or broken Codex may send any shape). */
interface ApprovalAsk {
  tool: ToolInfo;
  itemId: string | undefined;
  /** Codex offers "accept for this session" on both kinds (0.169.0, 0.171.0). */
  sessionScope: boolean;
}

const APPROVAL_METHODS = new Set(['item/commandExecution/requestApproval', 'item/fileChange/requestApproval']);

function approvalAsk(method: string, params: Record<string, unknown>): ApprovalAsk {
  const itemId = typeof params.itemId === 'string' ? params.itemId : undefined;
  if (method === 'item/commandExecution/requestApproval') {
    const command = typeof params.command === 'string' && params.command !== '' ? params.command : undefined;
    return {
      tool: { kind: 'command', name: 'exec_command', ...(command ? { title: command } : {}) },
      itemId,
      sessionScope: true,
    };
  }
  return { tool: { kind: 'file_change', name: 'apply_patch' }, itemId, sessionScope: true };
}

export class CodexApprovals {
  private readonly open = new Map<string, Resolver>();

  constructor(
    private readonly host: ApprovalHost,
    private readonly timeoutMs: number = DEFAULT_PERMISSION_TIMEOUT_MS,
  ) {}

  /** Answers one server request: resolves with the JSON-RPC result, or throws to answer with an error. */
  async answer(method: string, params: unknown, id: JsonRpcId, frame: Record<string, unknown>): Promise<unknown> {
    const at = Date.now();
    const native = nativeFrame(frame);
    if (!APPROVAL_METHODS.has(method)) {
      // User input, MCP elicitation, dynamic tools, ...: no Reins event for them yet.
      this.host.stream.emit({ type: 'passthrough', frame, reason: 'unknown' }, { native, at });
      throw new ReinsError('unsupported_capability', `Reins does not answer ${method} yet.`, { harness: HARNESS });
    }
    if (!isRecord(params)) {
      // A known request Reins cannot read: nobody can approve what it does, so it is declined.
      this.host.stream.emit({ type: 'passthrough', frame, reason: 'untranslatable' }, { native, at });
      return { decision: 'decline' };
    }
    const ask = approvalAsk(method, params);
    const options: PermissionOption[] = [
      { id: 'accept', kind: 'allow_once', label: 'Allow' },
      ...(ask.sessionScope
        ? [{ id: 'acceptForSession', kind: 'allow_always' as const, label: 'Allow for this session' }]
        : []),
      { id: 'decline', kind: 'reject_once', label: 'Decline' },
    ];
    const requestId = String(id);
    const decision = await new Promise<PermissionDecision>((resolve) => {
      const release = this.host.holdStallWatchdog();
      const timer = setTimeout(
        () => settle({ behavior: 'deny', message: `No answer within ${this.timeoutMs} ms; declined.` }, 'timeout'),
        this.timeoutMs,
      );
      const settle: Resolver = (chosen, by) => {
        if (this.open.get(requestId) !== settle) return;
        this.open.delete(requestId);
        clearTimeout(timer);
        release();
        if (!this.host.stream.isClosed) {
          this.host.stream.emit({ type: 'permission.resolved', requestId, decision: chosen, by });
        }
        resolve(chosen);
      };
      // A second request under an open id replaces the first, which is declined (never left hanging).
      this.open.get(requestId)?.({ behavior: 'deny', message: 'Codex asked again under the same id.' }, 'harness');
      this.open.set(requestId, settle);
      this.host.stream.emit(
        {
          type: 'permission.requested',
          requestId,
          tool: ask.tool,
          input: params,
          ...(ask.itemId ? { itemId: ask.itemId } : {}),
          options,
        },
        { native, at },
      );
    });
    return { decision: codexDecision(decision, ask.sessionScope) };
  }

  /** The caller's answer to an open request. */
  respond(requestId: string, raw: PermissionDecision): void {
    const parsed = PermissionDecisionSchema.safeParse(raw);
    if (!parsed.success) {
      throw new ReinsError(
        'invalid_input',
        'A permission decision needs behavior "allow" or "deny" (scope, optionId and message are optional).',
        { harness: HARNESS, operation: 'respondToPermission' },
      );
    }
    const settle = this.open.get(requestId);
    if (!settle) {
      throw new ReinsError(
        'invalid_input',
        `No open permission request "${requestId}" in this session (already answered, withdrawn or timed out).`,
        { harness: HARNESS, operation: 'respondToPermission' },
      );
    }
    settle(parsed.data, 'client');
  }

  /** Codex withdrew a request we had not answered (serverRequest/resolved: the turn was interrupted, ...). */
  withdrawn(requestId: unknown): void {
    this.open.get(String(requestId))?.({ behavior: 'deny', message: 'Codex withdrew the request.' }, 'harness');
  }

  /** The session ends: every open request is declined. */
  declineAll(message: string): void {
    for (const settle of [...this.open.values()]) settle({ behavior: 'deny', message }, 'harness');
  }
}

/** PermissionDecision -> Codex's decision string (command and file approvals share these). */
export function codexDecision(
  decision: PermissionDecision,
  sessionScope: boolean,
): 'accept' | 'acceptForSession' | 'decline' {
  if (decision.optionId === 'accept' || decision.optionId === 'decline') return decision.optionId;
  if (decision.optionId === 'acceptForSession') return sessionScope ? 'acceptForSession' : 'accept';
  if (decision.behavior === 'deny') return 'decline';
  return decision.scope === 'session' && sessionScope ? 'acceptForSession' : 'accept';
}
