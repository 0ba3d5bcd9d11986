// Opening a Codex thread on a Reins session, shared by thread/start, thread/resume and thread/fork
// (server.ts, fork.ts): the session spec from the thread's request, the refusals (a bridge shutting
// down, a "fork" that reopened its source), the thread id (the native id when the harness knows it,
// else a bridge-made `reins-<uuid>`: server.ts's header), and the answer Codex gives for a thread.
import { randomUUID } from 'node:crypto';
import { type Effort, type Harness, ReinsError, type SessionSpec } from '@reins/core';
import { withDeadline } from '../lifecycle.js';
import type { TurnRecord } from '../records.js';
import { liveThreadFacts, threadObject } from './catalog.js';
import { approvalPolicyOf, sandboxPolicyOf, type ThreadRequest } from './requests.js';
import { type CompletedItemsView, createThreadState } from './state.js';
import { BridgeThread, type Outbound } from './thread.js';
import type { ThreadStartResponse, Turn } from './wire.js';

export interface ThreadOpenContext {
  harness: Harness;
  requestTimeoutMs: number;
  permissionTimeoutMs: number;
  /** The bridge's default effort, for every thread. */
  effort: Effort | undefined;
  itemsView: CompletedItemsView | undefined;
  /** The open threads, by thread id. */
  threads: Map<string, BridgeThread>;
  /** Bridge-made thread ids -> the native id learned later. */
  nativeIds: Map<string, string>;
  out: Outbound;
  log: (message: string) => void;
  /** The bridge is shutting down: a session created meanwhile is closed again. */
  closing: () => boolean;
  remember: (thread: BridgeThread, turn?: TurnRecord) => Promise<void>;
  /** mcpServer/startupStatus/updated for a new thread, where the harness reports MCP status. */
  followMcpStartup: (thread: BridgeThread) => Promise<void>;
}

export interface OpenHow {
  resume?: SessionSpec['resume'];
  threadId?: string;
  forkedFromId?: string;
}

/**
 * Opens a thread: new, resumed (`resume`, under `threadId`) or forked (`resume.fork`, from `forkedFromId`).
 * The thread is held (its events wait) until the caller calls `release`, once its answer is built.
 */
export async function openThread(
  context: ThreadOpenContext,
  request: ThreadRequest,
  how: OpenHow = {},
): Promise<{ thread: BridgeThread; release: () => void }> {
  const { resume, threadId, forkedFromId } = how;
  const { harness, effort } = context;
  const spec: SessionSpec = {
    cwd: request.cwd,
    posture: request.posture,
    ...(request.model ? { model: request.model } : {}),
    ...(effort ? { effort } : {}),
    ...(request.systemPrompt ? { systemPrompt: request.systemPrompt } : {}),
    ...(request.mcpServers ? { mcpServers: request.mcpServers } : {}),
    ...(request.ephemeral ? { ephemeral: true } : {}),
    ...(resume ? { resume } : {}),
  };
  const session = await withDeadline(
    harness.createSession(spec),
    context.requestTimeoutMs,
    'createSession',
    (late) => void late.close(),
  );
  if (context.closing()) {
    await session.close();
    throw new ReinsError('process_exited', 'The bridge is shutting down.');
  }
  if (resume?.fork && session.nativeSessionId === resume.nativeSessionId) {
    // Never two threads on one conversation: a "fork" on the source's id would write into it.
    await session.close();
    throw new ReinsError(
      'resume_failed',
      `The ${harness.id} harness reopened conversation ${resume.nativeSessionId} instead of forking it.`,
      { operation: 'thread/fork' },
    );
  }
  const id = threadId ?? session.nativeSessionId ?? `reins-${randomUUID()}`;
  const state = createThreadState({
    threadId: id,
    cwd: request.cwd,
    ...(request.model ? { model: request.model } : {}),
    ...(effort ? { effort } : {}),
    ...(context.itemsView ? { itemsView: context.itemsView } : {}),
    fresh: resume === undefined,
    ...(forkedFromId ? { forkedFromId } : {}),
  });
  if (resume && !resume.fork) state.nativeSessionId = resume.nativeSessionId;
  const { threads, nativeIds } = context;
  const thread = new BridgeThread(id, session, state, request, {
    out: context.out,
    requestTimeoutMs: context.requestTimeoutMs,
    permissionTimeoutMs: context.permissionTimeoutMs,
    // Each client's opt-outs apply to it alone (clients.ts).
    optedOut: new Set(),
    log: context.log,
    turnEnded: (ended, turn) => void context.remember(ended, turn),
    ended: (ended) => {
      // A thread whose harness went away is gone: requests naming it get "thread not found".
      if (threads.get(ended.id) === ended) threads.delete(ended.id);
      const native = ended.state.nativeSessionId ?? ended.session.nativeSessionId;
      if (native && native !== ended.id) nativeIds.set(ended.id, native);
    },
  });
  threads.set(id, thread);
  const release = thread.hold();
  // The session's first events (model, native id) are already queued: let the pump take them in
  // before the answer is built from its state.
  await new Promise((resolve) => setImmediate(resolve));
  if (!session.nativeSessionId) context.log(`thread ${id}: the harness has no native session id yet`);
  void context.remember(thread);
  void context.followMcpStartup(thread);
  return { thread, release };
}

/** The answer thread/start (and, with more fields, thread/resume and thread/fork) gives for a thread. */
export function threadAnswerOf(
  thread: BridgeThread,
  turns: Turn[],
  model: string,
  provider: Harness['id'],
): ThreadStartResponse {
  return {
    thread: threadObject({ ...liveThreadFacts(thread, provider), ...(model ? { model } : {}) }, turns),
    model,
    modelProvider: provider,
    serviceTier: null,
    disabledPluginIds: [],
    cwd: thread.state.cwd,
    instructionSources: [],
    approvalPolicy: approvalPolicyOf(thread.request.posture),
    approvalsReviewer: 'user',
    // What is enforced (requests.ts sandboxPosture).
    sandbox: sandboxPolicyOf(thread.request.posture),
    reasoningEffort: thread.state.effort ?? null,
  };
}
