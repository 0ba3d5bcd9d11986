// Which conversation a launch of the CLI opens, and under which id (docs/architecture/contract.md,
// "Harness and session"):
// - new: `--session-id ID`, an id Reins picks, so the native id is known before the first prompt;
// - resume: `--resume ID` keeps that conversation and its id;
// - fork (spec.resume.fork): `--resume SOURCE --fork-session --session-id NEW` (the Agent SDK's `resume`
//   + `forkSession` + `sessionId`): a NEW conversation holding a copy of the source's history, under an
//   id Reins picks; the source transcript is not touched (seen on 2.1.197 and 2.1.332).
// Until a turn has been written the CLI has no transcript under the id: a relaunch then (to apply a
// launch-time setting) opens the same kind of conversation again, under a fresh id (reusing an id the
// CLI already claimed fails "already in use"). Once written, every relaunch resumes it.
// A revert takes the conversation back (rewind): a fork of it kept up to the message before the reverted
// turn (`resumeSessionAt`, `--resume-session-at`), under a new id, so the old transcript stays whole; or,
// when the turn was the conversation's first, a new conversation (or a new fork of the spec's source).
import { randomUUID } from 'node:crypto';
import type { SessionSpec } from '@reins/core';

export type ConversationLaunch =
  | { sessionId: string }
  | { resume: string }
  | { resume: string; forkSession: true; sessionId: string; resumeSessionAt?: string };

/** Where a revert takes the conversation: to just after one assistant message, or to its start. */
export type RewindPoint = { kind: 'message'; uuid: string } | { kind: 'start' };

export class ClaudeConversation {
  private current: string;
  /** The CLI has a transcript to resume under `id` (a resumed conversation, or after a written turn). */
  private written: boolean;
  /** The conversation a fork copies, until the fork's first turn is written. */
  private forkOf: string | undefined;
  /** The message a fork's copy ends at (a rewind's); absent: the whole source. */
  private forkAt: string | undefined;
  /** The spec's fork source: where a rewind to the start goes back to. */
  private readonly specForkOf: string | undefined;

  constructor(resume: SessionSpec['resume']) {
    this.forkOf = resume?.fork === true ? resume.nativeSessionId : undefined;
    this.specForkOf = this.forkOf;
    this.written = resume !== undefined && this.forkOf === undefined;
    this.current = this.written && resume ? resume.nativeSessionId : randomUUID();
  }

  /** The native session id: the resumed conversation's, else the one Reins picked (a fork's own). */
  get id(): string {
    return this.current;
  }

  get isWritten(): boolean {
    return this.written;
  }

  /** What the next launch passes the Agent SDK. */
  launch(): ConversationLaunch {
    if (this.written) return { resume: this.current };
    if (this.forkOf !== undefined) {
      const at = this.forkAt !== undefined ? { resumeSessionAt: this.forkAt } : {};
      return { resume: this.forkOf, forkSession: true, sessionId: this.current, ...at };
    }
    return { sessionId: this.current };
  }

  /** The CLI named another id (its system/init): that is the conversation from now on. */
  adopt(id: string): void {
    this.current = id;
  }

  /** A turn completed in a persisted session: the CLI wrote it under the id. */
  turnWritten(): void {
    this.written = true;
  }

  /**
   * The next launch opens the conversation as it was at `point`, under a fresh id; false when there is no
   * transcript to fork from (nothing was written yet and it is no fork).
   */
  rewind(point: RewindPoint): boolean {
    if (point.kind === 'start') {
      this.forkOf = this.specForkOf;
      this.forkAt = undefined;
    } else {
      const source = this.written ? this.current : this.forkOf;
      if (source === undefined) return false;
      this.forkOf = source;
      this.forkAt = point.uuid;
    }
    this.written = false;
    this.current = randomUUID();
    return true;
  }

  /** Before a relaunch: an unwritten conversation gets a fresh id (returns true when it did). */
  freshIdIfUnwritten(): boolean {
    if (this.written) return false;
    this.current = randomUUID();
    return true;
  }
}
