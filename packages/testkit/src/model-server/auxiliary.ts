// Requests harnesses make on their own (titles, model probes, routing, compaction, side queries). They get a
// default reply and are recorded with scripted:false, so they never consume a scripted turn and a test's
// queue stays aligned with the main conversation. Checked BEFORE `when()` and the queue.
//
// Evidence: the harness notes in docs/harnesses/ (versions there) where quoted; recognizers
// marked "inferred" follow the harness's known prompt text but were not seen in the recorded frames.
import { type ReplyInput, reply } from './builder.js';
import type { DialectName } from './dialects/dialect.js';
import { asArray, asRecord, asString, type JsonRecord } from './json.js';
import type { OfferedTool } from './tools.js';

export interface AuxiliaryRequest {
  dialect: DialectName;
  body: JsonRecord;
  streaming: boolean;
  offeredTools: readonly OfferedTool[];
  /** See Dialect.latestUserText. */
  latestUserText: string;
  systemText: string;
}

export interface AuxiliaryRecognizer {
  name: string;
  /** Which harness sends it and how we know. */
  evidence: string;
  matches(request: AuxiliaryRequest): boolean;
  reply(request: AuxiliaryRequest): ReplyInput;
}

/**
 * A minimal value satisfying a JSON schema (OpenAPI upper-case types included): first enum value, first
 * anyOf branch, required properties only when listed. Gemini CLI's router asks for {reasoning, model_choice}
 * and its next-speaker check for {reasoning, next_speaker}: the first enum values (`flash`, `user`) end both.
 */
export function valueForSchema(schema: unknown, depth = 0): unknown {
  const node = asRecord(schema);
  if (!node || depth > 8) return null;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  if ('const' in node) return node.const;
  const branch = asArray(node.anyOf)[0] ?? asArray(node.oneOf)[0];
  if (branch !== undefined) return valueForSchema(branch, depth + 1);
  const type = (asString(node.type) ?? (node.properties ? 'object' : 'string')).toLowerCase();
  switch (type) {
    case 'object': {
      const properties = asRecord(node.properties) ?? {};
      const required = asArray(node.required).filter((key): key is string => typeof key === 'string');
      const keys = required.length > 0 ? required : Object.keys(properties);
      return Object.fromEntries(keys.map((key) => [key, valueForSchema(properties[key], depth + 1)]));
    }
    case 'array':
      return [];
    case 'boolean':
      return false;
    case 'integer':
    case 'number':
      return 0;
    case 'null':
      return null;
    default:
      return 'scripted';
  }
}

const title = 'Scripted session';
const summary = 'Scripted summary of the conversation so far.';

function geminiJsonSchema(body: JsonRecord): unknown {
  const config = asRecord(body.generationConfig) ?? {};
  if (config.responseJsonSchema !== undefined) return config.responseJsonSchema;
  if (config.responseSchema !== undefined) return config.responseSchema;
  return config.responseMimeType === 'application/json' ? { type: 'object' } : undefined;
}

function chatJsonSchema(body: JsonRecord): unknown {
  const format = asRecord(body.response_format);
  if (format?.type === 'json_schema') return asRecord(format.json_schema)?.schema ?? { type: 'object' };
  return format?.type === 'json_object' ? { type: 'object' } : undefined;
}

export const defaultAuxiliaryRecognizers: readonly AuxiliaryRecognizer[] = [
  {
    name: 'claude-code.model-probe',
    evidence: 'harnesses/claude-code.md: SDK setModel() on 2.1.332 sends a 1-token probe POST to the new model',
    matches: (request) => request.dialect === 'anthropic' && request.body.max_tokens === 1,
    reply: () => reply().text('ok').usage({ input: 1, output: 1 }),
  },
  {
    name: 'claude-code.compact',
    evidence: 'harnesses/claude-code.md: /compact is a normal POST whose last user message asks for a detailed summary',
    matches: (request) =>
      request.dialect === 'anthropic' && /summary of the conversation/i.test(request.latestUserText),
    reply: () => reply().text(`<analysis>scripted</analysis>\n<summary>${summary}</summary>`),
  },
  {
    name: 'claude-code.title',
    evidence: 'harnesses/claude-code.md: without the DISABLE switches Claude Code POSTs title generations (tool-less)',
    matches: (request) =>
      request.dialect === 'anthropic' && request.offeredTools.length === 0 && /\btitle\b/i.test(request.systemText),
    reply: () => reply().text(title),
  },
  {
    name: 'codex-acp.title',
    evidence:
      'seen on codex-acp 2.6.0 (docs/architecture/acp.md): after the first turn it asks the configured provider, ' +
      'as model gpt-5.6-luna, for a title: its instructions ("generate a very short title") lead the user text',
    matches: (request) =>
      request.dialect === 'responses' && /generate a very short title for a conversation/i.test(request.latestUserText),
    reply: () => reply().text(JSON.stringify({ title })),
  },
  {
    name: 'codex.compact',
    evidence: "inferred: Codex's local compaction appends its 'CONTEXT CHECKPOINT COMPACTION' prompt as a user message",
    matches: (request) =>
      request.dialect === 'responses' && /CONTEXT CHECKPOINT COMPACTION/i.test(request.latestUserText),
    reply: () => reply().text(summary),
  },
  {
    name: 'gemini-cli.json-side-query',
    evidence:
      'harnesses/acp.md: Gemini CLI with model `auto` calls :generateContent for routing; its router and ' +
      'next-speaker checks are non-streaming calls with a response schema (inferred)',
    matches: (request) =>
      request.dialect === 'gemini-api' && !request.streaming && geminiJsonSchema(request.body) !== undefined,
    reply: (request) => reply().text(JSON.stringify(valueForSchema(geminiJsonSchema(request.body)))),
  },
  {
    name: 'gemini-cli.compress',
    evidence: "inferred: Gemini CLI and Qwen Code's history compression asks for a <state_snapshot>",
    matches: (request) =>
      (request.dialect === 'gemini-api' || request.dialect === 'chat') && /state_snapshot/.test(request.systemText),
    reply: () => reply().text(`<state_snapshot>${summary}</state_snapshot>`),
  },
  {
    name: 'opencode.title',
    evidence: "harnesses/acp.md: OpenCode's title generation uses the same provider (system prompt: title generator)",
    matches: (request) => request.dialect === 'chat' && /title generator/i.test(request.systemText),
    reply: () => reply().text(title),
  },
  {
    name: 'opencode.compaction',
    evidence: "inferred: OpenCode's compaction agent system prompt is about summarizing conversations",
    matches: (request) => request.dialect === 'chat' && /summarizing conversations/i.test(request.systemText),
    reply: () => reply().text(summary),
  },
  {
    name: 'qwen-code.side-query',
    evidence:
      'harnesses/acp.md: Qwen Code makes side calls (memory, suggestion, auto-approve classifier) to the same ' +
      'model; main turns stream with tools, so a non-streaming tool-less chat request is taken as a side call',
    matches: (request) => request.dialect === 'chat' && !request.streaming && request.offeredTools.length === 0,
    reply: (request) => {
      const schema = chatJsonSchema(request.body);
      return reply().text(schema === undefined ? 'ok' : JSON.stringify(valueForSchema(schema)));
    },
  },
  {
    name: 'qwen-code.suggestion',
    evidence:
      'seen on Qwen Code 0.24.4: after a turn it streams a request (with tools) whose last user text starts ' +
      '"[SUGGESTION MODE:" to suggest the next prompt; it took the next turn\'s scripted reply',
    matches: (request) => request.dialect === 'chat' && request.latestUserText.startsWith('[SUGGESTION MODE:'),
    reply: () => reply().text(''),
  },
  {
    name: 'qwen-code.memory-extraction',
    evidence:
      'seen on Qwen Code 0.24.4: after a tool round it streams a request whose system prompt makes it ' +
      '"the managed memory extraction subagent"',
    matches: (request) => request.dialect === 'chat' && /managed memory extraction subagent/.test(request.systemText),
    reply: () => reply().text('Nothing to remember.'),
  },
];

/** What an unscripted request gets when the server is not strict. */
export const defaultReply: ReplyInput = reply().text('ok');
