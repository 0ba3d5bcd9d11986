// Permission requests of one ACP session (`session/request_permission`): shown as
// `permission.requested`, answered at once under postures bypass and workspace (and while the turn is being
// cancelled), else held until `respondToPermission`, the agent withdrawing it ($/cancel_request), an
// interrupt or close. A pending request pauses the stall watchdog: the agent is waiting on the user.
import {
  type EventPayload,
  type HarnessId,
  isRecord,
  type NativeFrame,
  type PermissionDecision,
  type Posture,
  ReinsError,
} from '@reins/core';
import { pickPermissionOption } from './translate.js';
import type { PermissionOption } from './wire.js';

interface PendingPermission {
  options: PermissionOption[];
  resolve: (response: unknown) => void;
}

export interface ApprovalsContext {
  harness: HarnessId;
  posture: Posture;
  emit(payload: EventPayload, native?: NativeFrame): void;
  /**
   * The request's translation (the tool item when the agent never announced it, and
   * `permission.requested`), guarded: a frame it cannot translate yields a passthrough instead.
   */
  translate(
    native: NativeFrame,
    requestId: string,
    toolCall: Record<string, unknown>,
    options: PermissionOption[],
  ): EventPayload[];
  /** True while the running turn is being cancelled: new requests are declined at once. */
  cancelling(): boolean;
  /** True while a turn runs (to say `running` again once the request is answered). */
  inTurn(): boolean;
  /** Pauses the stall watchdog; the result resumes it. */
  holdStallWatchdog(): () => void;
}

/** The options of a request, keeping only entries that have the fields ACP requires. */
function permissionOptions(raw: unknown): PermissionOption[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (option): option is PermissionOption =>
      isRecord(option) && typeof option.optionId === 'string' && typeof option.kind === 'string',
  );
}

const CANCELLED = { outcome: { outcome: 'cancelled' } };

export class AcpApprovals {
  private readonly pending = new Map<string, PendingPermission>();
  private counter = 0;

  constructor(private readonly context: ApprovalsContext) {}

  /** Serves one `session/request_permission`; resolves with the answer the agent gets. */
  request(params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const { context } = this;
    const requestId = `perm_${++this.counter}`;
    const native: NativeFrame = {
      source: 'acp',
      method: 'session/request_permission',
      frame: { jsonrpc: '2.0', method: 'session/request_permission', params },
    };
    const options = permissionOptions(params.options);
    const toolCall = isRecord(params.toolCall) ? params.toolCall : {};
    const payloads = context.translate(native, requestId, toolCall, options);
    for (const payload of payloads) context.emit(payload, native);
    const cancelling = context.cancelling();
    // workspace never asks either: Reins' confinement is the gate (runtime/confinement.ts).
    if (context.posture !== 'ask' || cancelling) {
      const decision: PermissionDecision = cancelling ? { behavior: 'deny' } : { behavior: 'allow' };
      const optionId = cancelling ? undefined : pickPermissionOption(options, decision);
      context.emit({
        type: 'permission.resolved',
        requestId,
        decision: optionId ? { ...decision, optionId } : decision,
        by: 'client',
      });
      return Promise.resolve(optionId ? { outcome: { outcome: 'selected', optionId } } : CANCELLED);
    }
    if (!payloads.some((payload) => payload.type === 'permission.requested')) {
      // The request could not be translated (it is in the passthrough): still let the user answer it.
      context.emit(
        {
          type: 'permission.requested',
          requestId,
          tool: { kind: 'other', name: 'tool' },
          options: options.map((option) => ({ id: option.optionId, kind: option.kind, label: String(option.name) })),
        },
        native,
      );
    }
    context.emit({ type: 'session.status', status: 'requires_action' });
    const release = context.holdStallWatchdog();
    return new Promise((resolve) => {
      const finish = (response: unknown) => {
        this.pending.delete(requestId);
        signal.removeEventListener('abort', onAbort);
        release();
        if (context.inTurn()) context.emit({ type: 'session.status', status: 'running' });
        resolve(response);
      };
      const onAbort = () => {
        // The agent withdrew the request ($/cancel_request) or the connection ended.
        context.emit({ type: 'permission.resolved', requestId, decision: { behavior: 'deny' }, by: 'harness' });
        finish(CANCELLED);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(requestId, { options, resolve: finish });
    });
  }

  respond(requestId: string, decision: PermissionDecision): void {
    const pending = this.pending.get(requestId);
    if (!pending) {
      throw new ReinsError(
        'invalid_input',
        `No permission request ${requestId} is waiting (it was answered, withdrawn or never asked).`,
        { harness: this.context.harness, operation: 'respondToPermission' },
      );
    }
    const optionId = pickPermissionOption(pending.options, decision);
    if (!optionId && decision.behavior === 'allow') {
      throw new ReinsError(
        'invalid_input',
        `The agent offered no option that allows this request; options: ${pending.options.map((o) => o.optionId).join(', ')}.`,
        { harness: this.context.harness, operation: 'respondToPermission' },
      );
    }
    this.context.emit({
      type: 'permission.resolved',
      requestId,
      decision: optionId ? { ...decision, optionId } : decision,
      by: 'client',
    });
    pending.resolve(optionId ? { outcome: { outcome: 'selected', optionId } } : CANCELLED);
  }

  /**
   * Answers every pending request with `cancelled` (ACP: the client does so when it cancels the
   * turn). `announce`: say so with `permission.resolved` (not on close, when the stream ends anyway).
   */
  cancelAll(announce: boolean): void {
    for (const [requestId, pending] of [...this.pending]) {
      if (announce) {
        this.context.emit({ type: 'permission.resolved', requestId, decision: { behavior: 'deny' }, by: 'client' });
      }
      pending.resolve(CANCELLED);
    }
  }
}
