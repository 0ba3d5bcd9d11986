// `Session.diff` and `Session.revert` for every adapter built on the chassis: the checkpoints of the
// session (created by the chassis from the spec's cwd) plus the guards a revert needs.
import {
  ReinsError,
  type RevertOptions,
  type RevertResult,
  type SessionDiff,
  type SessionEventStream,
} from '@reins/core';
import { type ConversationRevert, TurnCheckpoints } from './turn-checkpoints.js';

/**
 * The checkpoints of a chassis session whose spec names a cwd, unless the spec turns them off (or, when
 * it says nothing, REINS_CHECKPOINTS=off does: the test tiers of unrelated behaviour); they emit
 * through the session's stream.
 */
export function checkpointsFor(
  stream: SessionEventStream,
  options: { harness: string; sessionId: string; spec?: { cwd?: string; checkpoints?: boolean } },
): TurnCheckpoints | undefined {
  const cwd = options.spec?.cwd;
  const wanted = options.spec?.checkpoints ?? process.env.REINS_CHECKPOINTS !== 'off';
  if (!cwd || !wanted) return undefined;
  return new TurnCheckpoints({
    harness: options.harness,
    sessionId: options.sessionId,
    cwd,
    // Asked for by name: outside a git work tree too, in the folder's private repository.
    anyFolder: options.spec?.checkpoints === true,
    emit: (payload, turnId) => {
      if (!stream.isClosed) stream.emit(payload, turnId ? { turnId } : { background: true });
    },
  });
}

/**
 * What diff and revert read of a session's chassis (runtime/chassis/session-chassis.ts), named here so
 * this module does not import the chassis that imports it.
 */
interface CheckpointedChassis {
  readonly checkpoints: TurnCheckpoints | undefined;
  readonly running: unknown;
  readonly queued: readonly unknown[];
  assertOpen(operation: string): void;
}

export function sessionDiff(chassis: CheckpointedChassis, harness: string, turnId?: string): Promise<SessionDiff> {
  return required(chassis, harness, 'diff').diff(turnId);
}

/** Reverts files (and the conversation through `conversation`) once no turn is running or queued. */
export async function sessionRevert(
  chassis: CheckpointedChassis,
  harness: string,
  turnId: string,
  options: RevertOptions,
  conversation: ConversationRevert,
): Promise<RevertResult> {
  chassis.assertOpen('revert');
  const checkpoints = required(chassis, harness, 'revert');
  if (chassis.running || chassis.queued.length > 0) {
    throw new ReinsError(
      'invalid_input',
      'A turn is running or queued; wait for it to end (or interrupt it) before reverting, so the files stay still.',
      { harness, operation: 'revert', data: { reason: 'turn_running' } },
    );
  }
  return checkpoints.revert(turnId, options, conversation);
}

function required(chassis: CheckpointedChassis, harness: string, operation: string): TurnCheckpoints {
  if (chassis.checkpoints) return chassis.checkpoints;
  throw noCheckpoints(harness, operation);
}

function noCheckpoints(harness: string, operation: string): ReinsError {
  return new ReinsError(
    'unsupported_capability',
    'This session keeps no checkpoints (spec.checkpoints is false, or REINS_CHECKPOINTS=off); start one with checkpoints: true.',
    { harness, operation, data: { reason: 'checkpoints_off' } },
  );
}

/** The conversation part of a revert for a harness that cannot go back: the files alone go back. */
export const filesOnly: ConversationRevert = async () => 'unchanged';
