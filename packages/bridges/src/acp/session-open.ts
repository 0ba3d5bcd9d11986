// Opening an ACP session on a Reins session, shared by session/new, session/load, session/resume and
// session/fork (agent.ts): the refusals (a bridge shutting down, a "fork" that reopened its source),
// the ACP session id (the native id when the harness knows it, else a bridge-made `reins-<uuid>`:
// agent.ts's header), the bridge state from the harness's capabilities and model catalog, and the
// held BridgeSession registered under its id.
import { randomUUID } from 'node:crypto';
import { type Harness, ReinsError, type SessionSpec } from '@reins/core';
import type { HarnessFacts } from '../harness-facts.js';
import { isImplemented, withDeadline } from '../lifecycle.js';
import type { ClientPort } from './port.js';
import { BridgeSession } from './session.js';
import { createBridgeState } from './translate.js';

export interface SessionOpenContext {
  harness: Harness;
  facts: HarnessFacts;
  requestTimeoutMs: number;
  permissionTimeoutMs: number;
  /** The open sessions, by ACP session id. */
  sessions: Map<string, BridgeSession>;
  connection: () => ClientPort | undefined;
  /** The client takes Reins notices (initialize's session.notices). */
  clientNotices: () => boolean;
  /** The bridge is shutting down: nothing opens, and a session created meanwhile is closed again. */
  closing: () => boolean;
  log: (message: string) => void;
  remember: (bridged: BridgeSession) => Promise<void>;
}

/** Opens a session under `acpId` (a load or resume) or a new id; `announced`: the client knows the id already. */
export async function openBridgeSession(
  context: SessionOpenContext,
  spec: SessionSpec,
  acpId: string | undefined,
  announced: boolean,
): Promise<BridgeSession> {
  if (context.closing()) throw new ReinsError('process_exited', 'The bridge is shutting down.');
  const catalog = context.facts.catalog();
  const matrix = await context.facts.capabilities();
  const session = await withDeadline(
    context.harness.createSession(spec),
    context.requestTimeoutMs,
    'createSession',
    (late) => void late.close(),
  );
  if (context.closing()) {
    await session.close();
    throw new ReinsError('process_exited', 'The bridge is shutting down.');
  }
  if (spec.resume?.fork && session.nativeSessionId === spec.resume.nativeSessionId) {
    // Never two sessions on one conversation: a "fork" on the source's id would write into it.
    await session.close();
    throw new ReinsError(
      'resume_failed',
      `The harness reopened ${spec.resume.nativeSessionId} instead of forking it.`,
      {
        operation: 'session/fork',
      },
    );
  }
  const id = acpId ?? session.nativeSessionId ?? `reins-${randomUUID()}`;
  const state = createBridgeState(
    {
      effortSwitch: isImplemented(matrix, 'liveEffortSwitch'),
      posture: spec.posture ?? 'bypass',
      // Modes are postures: switching one restarts the harness on the same conversation.
      modes: isImplemented(matrix, 'approvals') && isImplemented(matrix, 'resume'),
      ...(spec.model ? { model: spec.model } : {}),
      ...(spec.effort ? { effort: spec.effort } : {}),
    },
    { notices: context.clientNotices() },
  );
  const models = await catalog;
  if (models) state.settings.catalog = models;
  const bridged = new BridgeSession(
    id,
    session,
    state,
    spec,
    {
      connection: context.connection,
      permissionTimeoutMs: context.permissionTimeoutMs,
      log: context.log,
      changed: (changed) => void context.remember(changed),
    },
    { announced },
  );
  context.sessions.set(id, bridged);
  // The session's first events (model, native id, replayed history) are already queued: let the
  // pump take them in before the answer is built from its state.
  await new Promise((resolve) => setImmediate(resolve));
  if (!session.nativeSessionId) context.log(`session ${id}: the harness has no native session id yet`);
  void context.remember(bridged);
  return bridged;
}
