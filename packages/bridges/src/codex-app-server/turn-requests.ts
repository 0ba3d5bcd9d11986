// turn/start, turn/steer, turn/interrupt and thread/settings/update on one thread. Model and effort
// ride on turn/start in Codex ("this turn and subsequent turns"), or on the experimental
// thread/settings/update the TUI's model picker sends; input that arrives while a turn runs joins that turn, as
// Codex 0.169.0 does: steered where the harness can steer, else run next inside the same Codex turn.
import type { SendResult, TurnInput } from '@reins/core';
import { withDeadline } from '../lifecycle.js';
import { RpcError } from './connection.js';
import {
  checkTurnOverrides,
  effortOf,
  optionalString,
  outputSchemaOf,
  ParamsError,
  requiredString,
  turnInputOf,
} from './requests.js';
import { codexTurnIdFor } from './state.js';
import type { BridgeThread } from './thread.js';
import { beginSteer, endSteer, requestInterrupt, startedTurn } from './turns.js';
import { RPC, type TurnStartResponse, type TurnSteerResponse } from './wire.js';

export interface TurnRequestContext {
  thread: BridgeThread;
  requestTimeoutMs: number;
}

/** Applies a turn's model and effort, each only when it changes. */
export async function applyTurnSettings(context: TurnRequestContext, params: Record<string, unknown>): Promise<void> {
  const { thread, requestTimeoutMs } = context;
  const model = optionalString(params, 'model');
  const effort = effortOf(params.effort);
  if (model && model !== thread.state.model) {
    await withDeadline(thread.session.setModel(model), requestTimeoutMs, 'setModel');
    thread.state.model = model;
  }
  if (effort && effort !== thread.state.effort) {
    await withDeadline(thread.session.setEffort(effort), requestTimeoutMs, 'setEffort');
    thread.state.effort = effort;
  }
}

/** Settings a harness takes only when its session starts: thread/settings/update refuses to change them. */
const START_ONLY_SETTINGS = [
  'cwd',
  'environments',
  'approvalPolicy',
  'approvalsReviewer',
  'sandboxPolicy',
  'permissions',
];

/**
 * thread/settings/update (experimental; the Codex TUI 0.171.0's `/model` picker sends `model` and
 * `effort` here, recorded against the real app-server: docs/architecture/bridges.md): model and effort
 * for the next turns. Its `collaborationMode` (Codex's own plan/default presets) is not a Reins setting.
 */
export async function updateThreadSettings(
  context: TurnRequestContext,
  params: Record<string, unknown>,
): Promise<Record<string, never>> {
  for (const field of START_ONLY_SETTINGS) {
    if (params[field] !== undefined && params[field] !== null)
      throw new ParamsError(field, 'a harness takes it only at start; start a new thread with it.');
  }
  await applyTurnSettings(context, { model: params.model, effort: params.effort });
  return {};
}

/** Input for the running Codex turn: steered where the harness can, else run next inside the same turn. */
async function deliverIntoTurn(context: TurnRequestContext, input: TurnInput): Promise<string> {
  const { thread } = context;
  const codexTurnId = beginSteer(thread.state);
  if (!codexTurnId) throw new RpcError(RPC.invalidRequest, 'no active turn to steer', { threadId: thread.id });
  const release = thread.hold();
  let delivered: SendResult | undefined;
  try {
    delivered = await withDeadline(thread.session.send(input, { mode: 'steer' }), context.requestTimeoutMs, 'send');
    return codexTurnId;
  } finally {
    thread.emit(endSteer(thread.state, codexTurnId, input, delivered, Date.now()));
    release();
  }
}

export async function startTurn(
  context: TurnRequestContext,
  params: Record<string, unknown>,
): Promise<TurnStartResponse> {
  const { thread } = context;
  const input = turnInputOf(params.input);
  const outputSchema = outputSchemaOf(params.outputSchema);
  checkTurnOverrides(params, { cwd: thread.state.cwd, posture: thread.request.posture });
  await applyTurnSettings(context, params);
  const open = thread.state.turn;
  if (open) {
    if (outputSchema) throw new ParamsError('outputSchema', 'belongs to a new turn; this thread has a turn running.');
    await deliverIntoTurn(context, input);
    return { turn: startedTurn(open.id) };
  }
  const release = thread.hold();
  try {
    const sent = await withDeadline(
      thread.session.send(input, { mode: 'queue', ...(outputSchema ? { outputSchema } : {}) }),
      context.requestTimeoutMs,
      'send',
    );
    const codexTurnId = codexTurnIdFor(thread.state, sent.turnId);
    // The pump may not have seen the turn start yet; an interrupt may come before it does.
    if (thread.state.turn?.id !== codexTurnId && thread.state.lastTurnId !== codexTurnId)
      thread.unstarted.add(codexTurnId);
    return { turn: startedTurn(codexTurnId) };
  } finally {
    release();
  }
}

export async function steerTurn(
  context: TurnRequestContext,
  params: Record<string, unknown>,
): Promise<TurnSteerResponse> {
  const { thread } = context;
  const expected = requiredString(params, 'expectedTurnId');
  const input = turnInputOf(params.input);
  const open = thread.state.turn;
  if (!open) throw new RpcError(RPC.invalidRequest, 'no active turn to steer', { threadId: thread.id });
  if (open.id !== expected) {
    // Codex 0.169.0's wording, which clients match to fall back to a new turn.
    throw new RpcError(RPC.invalidRequest, `expected active turn id \`${expected}\` but found \`${open.id}\``, {
      threadId: thread.id,
    });
  }
  return { turnId: await deliverIntoTurn(context, input) };
}

export async function interruptTurn(
  context: TurnRequestContext,
  params: Record<string, unknown>,
): Promise<Record<string, never>> {
  const { thread } = context;
  const turnId = requiredString(params, 'turnId');
  if (!requestInterrupt(thread.state, turnId)) {
    if (!thread.unstarted.has(turnId)) {
      throw new RpcError(RPC.invalidRequest, `no active turn ${turnId} in thread ${thread.id}`, { turnId });
    }
    thread.interruptOnStart.add(turnId);
  }
  await thread.interruptNow();
  return {};
}
