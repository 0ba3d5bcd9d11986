// Turns a ScriptedReply into a ResponsePlan for one request: tool steps resolved against the offered tools,
// call ids assigned, usage filled in. Dialect writers only ever see a plan.
import type { ReplyEnding, ScriptedReply } from './builder.js';
import {
  type OfferedTool,
  resolveRaw,
  resolveShell,
  resolveWrite,
  structuredOutputTool,
  type ToolRecipes,
} from './tools.js';

export type PlanPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool'; callId: string; name: string; input: unknown; custom: boolean; namespace?: string };

export interface PlanUsage {
  input: number;
  output: number;
  cachedInput: number;
  reasoning: number;
}

export type StreamEnding = Exclude<ReplyEnding, { kind: 'httpError' }>;

export interface ResponsePlan {
  parts: PlanPart[];
  usage: PlanUsage;
  ending: StreamEnding;
  delayMs: number;
}

/** Deterministic ids per server, so recorded traffic and assertions stay stable across runs. */
export class IdSource {
  private counter = 0;
  next(prefix: string): string {
    this.counter += 1;
    return `${prefix}_scripted_${this.counter}`;
  }
}

export interface PlanContext {
  offered: readonly OfferedTool[];
  recipes: ToolRecipes;
  ids: IdSource;
  /** Prefix for tool call ids in this dialect (Anthropic `toolu`, OpenAI `call`). */
  callIdPrefix: string;
  /** Size of the raw request body, for the default input token estimate. */
  requestBytes: number;
}

const approxTokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4));

/** Throws ToolResolutionError when a shell/write step finds no known tool. */
export function planReply(reply: ScriptedReply, context: PlanContext): ResponsePlan {
  const parts: PlanPart[] = [];
  const tool = (spec: { name: string; input: unknown; custom: boolean }): PlanPart => ({
    type: 'tool',
    callId: context.ids.next(context.callIdPrefix),
    ...spec,
  });
  for (const step of reply.steps) {
    switch (step.kind) {
      case 'text':
        parts.push({ type: 'text', text: step.text });
        break;
      case 'reasoning':
        parts.push({ type: 'reasoning', text: step.text });
        break;
      case 'toolCall':
        parts.push({
          ...tool(resolveRaw(step.name, step.input, context.offered)),
          ...(step.namespace ? { namespace: step.namespace } : {}),
        });
        break;
      case 'shell':
        parts.push(tool(resolveShell(step.command, context.offered, context.recipes)));
        break;
      case 'writeFile':
        parts.push(tool(resolveWrite(step.path, step.content, context.offered, context.recipes)));
        break;
      case 'json':
        parts.push(
          context.offered.some((offered) => offered.name === structuredOutputTool)
            ? tool({ name: structuredOutputTool, input: step.value, custom: false })
            : { type: 'text', text: JSON.stringify(step.value) },
        );
        break;
      default:
        return assertNever(step);
    }
  }
  return {
    parts,
    usage: fillUsage(reply, parts, context.requestBytes),
    ending: reply.ending.kind === 'httpError' ? { kind: 'complete' } : reply.ending,
    delayMs: reply.delayMs,
  };
}

/**
 * When a script gives no usage we still send some, because harnesses report (and Codex only emits
 * tokenUsage when) usage arrives: input is estimated from the request size, output from what we emit,
 * both at ~4 characters per token. Deterministic, so tests can compute them too.
 */
function fillUsage(reply: ScriptedReply, parts: readonly PlanPart[], requestBytes: number): PlanUsage {
  let outputChars = 0;
  let reasoningChars = 0;
  for (const part of parts) {
    if (part.type === 'text') outputChars += part.text.length;
    else if (part.type === 'reasoning') reasoningChars += part.text.length;
    else outputChars += toolArguments(part).length;
  }
  const given = reply.usage;
  const reasoning = given?.reasoning ?? (reasoningChars > 0 ? approxTokens(reasoningChars) : 0);
  return {
    input: given?.input ?? approxTokens(requestBytes),
    output: given?.output ?? approxTokens(outputChars) + reasoning,
    cachedInput: given?.cachedInput ?? 0,
    reasoning,
  };
}

/** The wire string of a tool call's input: the raw text for a custom tool, JSON otherwise. */
export function toolArguments(part: Extract<PlanPart, { type: 'tool' }>): string {
  return part.custom && typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {});
}

/** Splits text into a few chunks on word boundaries so clients see real deltas. */
export function chunkText(text: string, pieces = 3): string[] {
  const words = text.match(/\s*\S+\s*/g);
  if (!words || words.length <= 1) return [text];
  const size = Math.ceil(words.length / pieces);
  const chunks: string[] = [];
  for (let index = 0; index < words.length; index += size) chunks.push(words.slice(index, index + size).join(''));
  return chunks;
}

/** Splits a JSON argument string into a few slices, like providers stream partial JSON. */
export function chunkJson(json: string, pieces = 3): string[] {
  if (json.length < pieces * 2) return [json];
  const size = Math.ceil(json.length / pieces);
  const chunks: string[] = [];
  for (let index = 0; index < json.length; index += size) chunks.push(json.slice(index, index + size));
  return chunks;
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
