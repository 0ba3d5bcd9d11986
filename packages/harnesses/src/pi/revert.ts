// The conversation part of Session.revert on Pi: RPC `fork` at the user message that opened the turn
// (0.73.1: a NEW session holding the conversation before that message; the old file stays whole), so
// the result says `forked` (docs/architecture/contract.md, "Checkpoints"; docs/harnesses/pi.md, "Revert").
import { ReinsError, type RevertResult } from '@reins/core';
import { z } from 'zod';
import type { PiCommandChannel } from './commands.js';

interface SentMessage {
  turnId: string;
  text: string;
}

/**
 * The user messages Reins sent Pi in this process, in order (each turn's prompt, then its steers): Pi
 * names its entries only when asked (`get_fork_messages`), so a turn's entry is found by its text.
 */
export class PiUserMessages {
  private readonly sent: SentMessage[] = [];
  private readonly prompts = new Map<string, SentMessage>();

  prompt(turnId: string, text: string): void {
    const message = { turnId, text };
    this.sent.push(message);
    this.prompts.set(turnId, message);
  }

  steer(turnId: string, text: string): void {
    this.sent.push({ turnId, text });
  }

  /** The turn's prompt, and how many messages with the same text Reins sent from it on (itself included). */
  locate(turnId: string): { text: string; fromEnd: number } | undefined {
    const prompt = this.prompts.get(turnId);
    if (!prompt) return undefined;
    const later = this.sent.slice(this.sent.indexOf(prompt));
    return { text: prompt.text, fromEnd: later.filter((message) => message.text === prompt.text).length };
  }

  /** After a fork before the turn: its messages and every later one are out of the conversation. */
  dropFrom(turnId: string): void {
    const prompt = this.prompts.get(turnId);
    if (!prompt) return;
    for (const message of this.sent.splice(this.sent.indexOf(prompt))) this.prompts.delete(message.turnId);
  }
}

const ForkMessagesSchema = z.object({
  messages: z.array(z.object({ entryId: z.string(), text: z.string() })),
});
export type PiForkMessage = z.infer<typeof ForkMessagesSchema>['messages'][number];

/**
 * The entry of a located prompt among Pi's user messages: the `fromEnd`-th last with that text (later
 * turns may repeat it). Undefined when Pi holds fewer (a prompt Pi rewrote, e.g. a template).
 */
export function forkEntryOf(
  messages: readonly PiForkMessage[],
  located: { text: string; fromEnd: number },
): string | undefined {
  const same = messages.filter((message) => message.text === located.text);
  return same[same.length - located.fromEnd]?.entryId;
}

export interface PiRevertContext {
  channel: PiCommandChannel;
  messages: PiUserMessages;
  /** Pi's session after the fork: its file (absent for an ephemeral session) becomes the native id. */
  forked(sessionFile: string | undefined): void;
}

/**
 * Takes Pi's conversation back to before `turnIds[0]`. `unchanged` (the files alone go back) when Reins
 * cannot name that turn's entry: a turn of another process, or a prompt Pi stored differently.
 */
export async function forkBeforeTurn(
  context: PiRevertContext,
  turnIds: readonly string[],
): Promise<RevertResult['conversation']> {
  const [first] = turnIds;
  const located = first === undefined ? undefined : context.messages.locate(first);
  if (!first || !located) return 'unchanged';
  const listed = ForkMessagesSchema.safeParse((await context.channel.request({ type: 'get_fork_messages' })).data);
  const entryId = listed.success ? forkEntryOf(listed.data.messages, located) : undefined;
  if (!entryId) return 'unchanged';
  const fork = await context.channel.request({ type: 'fork', entryId });
  if ((fork.data as { cancelled?: unknown } | undefined)?.cancelled === true) {
    throw new ReinsError(
      'harness_unhealthy',
      'Pi cancelled the fork (an extension refused it); nothing was reverted.',
      {
        harness: 'pi',
        operation: 'revert',
        data: { reason: 'fork_cancelled' },
      },
    );
  }
  context.messages.dropFrom(first);
  // Unanswered, the next turn's get_state barrier names the new file instead (session.ts).
  const state = await context.channel.request({ type: 'get_state' }).catch(() => undefined);
  if (state) context.forked((state.data as { sessionFile?: string } | undefined)?.sessionFile);
  return 'forked';
}
