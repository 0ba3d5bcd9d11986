// One `session/prompt` of an ACP session, both ways: the turn input as ACP content blocks (text,
// images inline or read from a path, file references as resource links), and what the agent's
// answer or error means (the stop reasons this SDK knows, provider failures inside a JSON-RPC
// error, Gemini's token counts in `_meta`). The rules for what a provider failure is live in
// runtime/chassis/provider-failure.ts; only where each agent puts the status and words is here.
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import {
  type ErrorInfo,
  ErrorInfoSchema,
  type EventPayload,
  type HarnessId,
  isRecord,
  type PayloadOf,
  ReinsError,
  type TurnInput,
  type TurnOutcome,
} from '@reins/core';
import { type ProviderFailure, providerError, providerFailureOf, statusIn } from '../runtime/chassis/index.js';
import { imageTypeOfPath } from '../runtime/image-types.js';
import { outcomeOf, turnTokens } from './translate.js';
import { type ContentBlock, RPC, type StopReason } from './wire.js';

export type Completion = Omit<PayloadOf<'turn.completed'>, 'type'>;

/** The stop reasons of the pinned SDK's schema; any other value is from a newer agent. */
const STOP_REASONS: Record<StopReason, true> = {
  end_turn: true,
  max_tokens: true,
  max_turn_requests: true,
  refusal: true,
  cancelled: true,
};

export function isKnownStopReason(value: unknown): value is StopReason {
  return typeof value === 'string' && Object.hasOwn(STOP_REASONS, value);
}

export interface PromptContext {
  harness: HarnessId;
  label: string;
  cwd: string;
}

/** Images only go to an agent that said in initialize that it takes them; refused at send time. */
export function assertAcceptsImages(input: TurnInput, acceptsImages: boolean, context: PromptContext): void {
  if (!input.images?.length || acceptsImages) return;
  throw new ReinsError('unsupported_capability', `${context.label} does not accept images in a prompt.`, {
    harness: context.harness,
    operation: 'send',
    data: { capability: 'images' },
  });
}

/** The turn's input as ACP content blocks; `prefix` goes before the text (system prompt additions). */
export async function promptBlocks(input: TurnInput, context: PromptContext, prefix?: string): Promise<ContentBlock[]> {
  const text = prefix ? `${prefix}\n\n${input.text}` : input.text;
  const blocks: ContentBlock[] = [{ type: 'text', text }];
  if (input.images?.length) {
    for (const image of input.images) {
      if (image.source === 'data' && image.data) {
        blocks.push({ type: 'image', data: image.data, mimeType: image.mediaType ?? 'image/png' });
      } else if (image.path) {
        const path = isAbsolute(image.path) ? image.path : resolve(context.cwd, image.path);
        const data = await readFile(path)
          .then((bytes) => bytes.toString('base64'))
          .catch((error: NodeJS.ErrnoException) => {
            throw new ReinsError('invalid_input', `Cannot read the image ${path}: ${error.code ?? error.message}.`, {
              harness: context.harness,
              operation: 'send',
            });
          });
        const mimeType = image.mediaType ?? imageTypeOfPath(path) ?? 'application/octet-stream';
        blocks.push({ type: 'image', data, mimeType, uri: `file://${path}` });
      } else {
        throw new ReinsError('invalid_input', 'An image needs inline data or a path.', {
          harness: context.harness,
          operation: 'send',
        });
      }
    }
  }
  for (const file of input.files ?? []) {
    const path = isAbsolute(file.path) ? file.path : resolve(context.cwd, file.path);
    const lines = file.lines ? `#L${file.lines.start}${file.lines.end ? `-${file.lines.end}` : ''}` : '';
    blocks.push({ type: 'resource_link', uri: `file://${path}${lines}`, name: basename(path) });
  }
  return blocks;
}

/** A provider failure inside a JSON-RPC error: an HTTP status in the code, message or data. */
export function classifyPromptError(error: ReinsError, model?: string): ErrorInfo {
  if (error.code !== 'protocol_error') return error.toInfo();
  const rpcCode = error.data?.rpcCode;
  const rpcData = error.data?.rpcData;
  // An agent that speaks Reins errors (our own ACP bridge) puts the ErrorInfo in data: keep it as is.
  const reins = ErrorInfoSchema.safeParse(rpcData);
  if (reins.success) return reins.data;
  const haystack = `${String(error.data?.rpcMessage ?? '')} ${JSON.stringify(rpcData ?? '')}`;
  // Gemini CLI 0.61.0 answers with the HTTP status as the JSON-RPC code (400); Qwen 0.24.4,
  // OpenCode 1.18.33 and claude-agent-acp 0.23.1 say -32603 with the status in the text.
  const status = typeof rpcCode === 'number' && rpcCode >= 400 && rpcCode < 600 ? rpcCode : statusIn(haystack);
  const apiError = /APIError|API Error|invalid_request|rate.?limit|overloaded/i.test(haystack);
  if (status === undefined && !apiError) return error.toInfo();
  // Qwen 0.24.4 says only "Internal error" and puts the provider's words in data.details.
  const details = isRecord(rpcData) && typeof rpcData.details === 'string' ? rpcData.details : undefined;
  const message = [String(error.data?.rpcMessage ?? error.message), details].filter(Boolean).join(': ');
  const failure = { ...providerFailureOf(status, haystack), message };
  return providerError(failure, { ...error.data }, model);
}

/** Gemini CLI 0.61.0 reports a turn's tokens only in PromptResponse._meta.quota.token_count. */
export function quotaTokens(meta: unknown): { input?: number; output?: number } | undefined {
  const quota = isRecord(meta) && isRecord(meta.quota) ? meta.quota : undefined;
  const count = quota && isRecord(quota.token_count) ? quota.token_count : undefined;
  if (!count) return undefined;
  const out: { input?: number; output?: number } = {};
  if (typeof count.input_tokens === 'number') out.input = count.input_tokens;
  if (typeof count.output_tokens === 'number') out.output = count.output_tokens;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** What the session knew of the turn when the agent answered its prompt. */
export interface AnswerContext {
  label: string;
  /** Reins asked the agent to cancel this turn. */
  cancelRequested: boolean;
  /** The previous turn ended cancelled. */
  afterCancel: boolean;
  /** Output updates (text, thoughts, tools, plans) the agent sent in this turn. */
  turnUpdates: number;
  /** A provider failure the agent reported as message text in this turn. */
  providerError: ProviderFailure | undefined;
  model: string | undefined;
}

/** The turn's terminal from the agent's PromptResponse, and what to emit before it. */
export function readPromptAnswer(
  response: unknown,
  context: AnswerContext,
): { completion: Completion; before: EventPayload[] } {
  const before: EventPayload[] = [];
  const answer = isRecord(response) ? response : {};
  const stopReason = answer.stopReason;
  let outcome: TurnOutcome;
  if (isKnownStopReason(stopReason)) {
    outcome = outcomeOf(stopReason);
  } else {
    // A stop reason newer than the pinned SDK (or none at all): the agent did end the prompt, so
    // the turn ends completed with the agent's value kept; the answer is passed through too.
    const reason = typeof stopReason === 'string' ? 'unknown' : 'unparsable';
    before.push({ type: 'passthrough', frame: response ?? null, reason });
    outcome = { status: 'completed' };
  }
  // OpenCode 1.18.33 answers end_turn to a cancel that lands during provider retries: the
  // caller asked to stop and the agent stopped, so the turn is cancelled (stopReason kept).
  if (context.cancelRequested && outcome.status === 'completed') outcome = { status: 'cancelled' };
  // claude-agent-acp 0.23.1 without the reopen: right after a cancel, the next prompt is answered
  // at once with an empty end_turn and its real answer comes with the prompt after. Say so.
  if (context.afterCancel && stopReason === 'end_turn' && context.turnUpdates === 0) {
    before.push({
      type: 'notice',
      kind: 'warning',
      message: `${context.label} ended this turn at once with no output right after a cancelled turn; its answer may arrive with the next prompt (an agent-side queue out of step).`,
      data: { quirk: 'empty_end_turn_after_cancel' },
    });
  }
  const tokens = turnTokens(answer.usage as Parameters<typeof turnTokens>[0]) ?? quotaTokens(answer._meta);
  const usage = tokens ? { turn: tokens } : undefined;
  if (usage) before.push({ type: 'usage.updated', ...usage });
  if (outcome.status === 'completed' && context.providerError) {
    outcome = {
      status: 'failed',
      error: providerError(context.providerError, { reportedAs: 'message_text' }, context.model),
    };
  }
  const completion: Completion = {
    outcome,
    ...(typeof stopReason === 'string' ? { stopReason } : {}),
    ...(usage ? { usage } : {}),
  };
  return { completion, before };
}

/** The turn's terminal when session/prompt failed: cancelled when Reins asked for it, else the classified error. */
export function readPromptFailure(
  failure: ReinsError,
  context: Pick<AnswerContext, 'cancelRequested' | 'model'>,
): Completion {
  const cancelled =
    context.cancelRequested && (failure.data?.rpcCode === RPC.requestCancelled || failure.code === 'timeout');
  return {
    outcome: cancelled
      ? { status: 'cancelled' }
      : { status: 'failed', error: classifyPromptError(failure, context.model) },
  };
}
