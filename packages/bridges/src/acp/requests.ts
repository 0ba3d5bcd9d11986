// Pure translation the other way: what an ACP client asks for -> what a Reins session takes (turn
// input, MCP servers, a permission decision, a setting, the spec of a session it opens). Bad input throws invalid_input, which the
// agent answers with JSON-RPC -32602 and the Reins message.
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import {
  EFFORT_LEVELS,
  type Effort,
  type FileRef,
  type ImageRef,
  type McpServerSpec,
  type PermissionDecision,
  type Posture,
  ReinsError,
  type PermissionOption as ReinsPermissionOption,
  type SessionSpec,
  type TurnInput,
} from '@reins/core';
import { FALLBACK_ALLOW } from './answers.js';
import { EFFORT_OPTION, HARNESS_DEFAULT, MODE_IDS, MODEL_OPTION } from './options.js';
import type { ContentBlock, McpServer, RequestPermissionOutcome } from './wire.js';

function invalid(message: string): ReinsError {
  return new ReinsError('invalid_input', message, { operation: 'acp-bridge' });
}

/** `file:///a/b.ts#L3-9` -> a file reference with its line range; other URIs are not files. */
export function fileRefOf(uri: string): FileRef | undefined {
  if (!uri.startsWith('file://')) return undefined;
  const [base, fragment] = uri.split('#', 2) as [string, string | undefined];
  let path: string;
  try {
    path = fileURLToPath(base);
  } catch {
    return undefined;
  }
  const lines = fragment ? /^L(\d+)(?:-L?(\d+))?$/.exec(fragment) : null;
  if (!lines) return { path };
  const start = Number(lines[1]);
  return { path, lines: lines[2] ? { start, end: Number(lines[2]) } : { start } };
}

/**
 * ACP prompt blocks -> one Reins turn input. Text blocks are fragments of one message and are
 * joined as they are; a file link becomes a file reference and leaves its name in the sentence;
 * images become inline images. Audio and binary resources have no Reins input (the bridge does not
 * advertise them), so they are refused rather than dropped.
 */
export function promptInput(blocks: ContentBlock[]): TurnInput {
  let text = '';
  const images: ImageRef[] = [];
  const files: FileRef[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        text += block.text;
        break;
      case 'image': {
        if (block.data) {
          images.push({ source: 'data', mediaType: block.mimeType, data: block.data });
          break;
        }
        const file = block.uri ? fileRefOf(block.uri) : undefined;
        if (!file) throw invalid('An image in the prompt has neither data nor a file:// uri.');
        images.push({ source: 'path', mediaType: block.mimeType, path: file.path });
        break;
      }
      case 'resource_link': {
        const file = fileRefOf(block.uri);
        if (file) {
          files.push(file);
          text += block.name;
        } else {
          text += block.uri;
        }
        break;
      }
      case 'resource': {
        const resource = block.resource;
        if (!('text' in resource)) {
          throw invalid(
            `The prompt embeds a binary resource (${resource.uri}); this agent takes text, images and links.`,
          );
        }
        text += `${text && !text.endsWith('\n') ? '\n' : ''}${resource.uri}\n${resource.text}\n`;
        break;
      }
      case 'audio':
        throw invalid('The prompt contains audio; this agent does not take audio.');
      default: {
        const unknown: { type?: unknown } = block;
        throw invalid(`Unknown prompt content type ${JSON.stringify(unknown.type)}.`);
      }
    }
  }
  if (text.trim() === '' && images.length === 0 && files.length === 0) throw invalid('The prompt is empty.');
  return { text, ...(images.length > 0 ? { images } : {}), ...(files.length > 0 ? { files } : {}) };
}

/** ACP MCP server list -> the session spec's MCP servers. */
export function mcpServersOf(servers: McpServer[]): McpServerSpec[] {
  const record = (pairs: { name: string; value: string }[]) =>
    Object.fromEntries(pairs.map((pair) => [pair.name, pair.value]));
  return servers.map((server): McpServerSpec => {
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      return {
        name: server.name,
        transport: server.type,
        url: server.url,
        ...(server.headers.length > 0 ? { headers: record(server.headers) } : {}),
      };
    }
    const stdio = server as Extract<McpServer, { command: string }>;
    return {
      name: stdio.name,
      transport: 'stdio',
      command: stdio.command,
      ...(stdio.args.length > 0 ? { args: stdio.args } : {}),
      ...(stdio.env.length > 0 ? { env: record(stdio.env) } : {}),
    };
  });
}

/** The client's answer to session/request_permission -> the Reins decision. */
export function decisionOf(outcome: RequestPermissionOutcome, options: ReinsPermissionOption[]): PermissionDecision {
  if (outcome.outcome !== 'selected') return { behavior: 'deny' };
  const option = options.find((candidate) => candidate.id === outcome.optionId);
  if (!option) {
    // The bridge's own fallback pair (the harness offered no options), or an id it never offered.
    return { behavior: outcome.optionId === FALLBACK_ALLOW ? 'allow' : 'deny' };
  }
  const allow = option.kind === 'allow_once' || option.kind === 'allow_always';
  const always = option.kind === 'allow_always' || option.kind === 'reject_always';
  return { behavior: allow ? 'allow' : 'deny', scope: always ? 'session' : 'once', optionId: option.id };
}

export type SettingRequest = { setting: 'model'; model: string } | { setting: 'effort'; effort: Effort };

/** session/set_config_option -> which setting to change, checked. */
export function settingRequestOf(configId: string, value: unknown): SettingRequest {
  if (typeof value !== 'string' || value === '') {
    throw invalid(`The value for config option "${configId}" must be a non-empty string.`);
  }
  if (configId === MODEL_OPTION) return { setting: 'model', model: value };
  if (configId === EFFORT_OPTION) {
    if (value === HARNESS_DEFAULT) {
      throw invalid(
        `"${HARNESS_DEFAULT}" stands for the harness's own choice and cannot be set; pick one of ${EFFORT_LEVELS.join(', ')}.`,
      );
    }
    if (!(EFFORT_LEVELS as readonly string[]).includes(value)) {
      throw invalid(`Unknown effort "${value}"; use one of ${EFFORT_LEVELS.join(', ')}.`);
    }
    return { setting: 'effort', effort: value as Effort };
  }
  throw invalid(`Unknown config option "${configId}"; this agent offers "${MODEL_OPTION}" and "${EFFORT_OPTION}".`);
}

/** Params of the legacy session/set_model, checked by hand (it has no schema in the SDK). */
export function parseSetModel(params: unknown): { sessionId: string; modelId: string } {
  const record = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  if (typeof record.sessionId !== 'string' || typeof record.modelId !== 'string' || record.modelId === '') {
    throw RequestError.invalidParams(undefined, 'session/set_model needs a sessionId and a modelId.');
  }
  return { sessionId: record.sessionId, modelId: record.modelId };
}

/** What a session ran with, as the records (or a live session) keep it. */
export interface SavedSettings {
  model?: string | undefined;
  effort?: string | undefined;
  mode?: string | undefined;
}

/** The spec of a session the client opens: its cwd and MCP servers, on saved settings, else the bridge's. */
export function sessionSpecOf(
  cwd: string,
  mcpServers: McpServer[],
  defaults: { model?: string; effort?: Effort; posture?: Posture },
  saved?: SavedSettings,
): SessionSpec {
  if (!isAbsolute(cwd)) {
    throw new ReinsError('invalid_input', `The session cwd must be an absolute path; got "${cwd}".`, {
      operation: 'session/new',
    });
  }
  const servers = mcpServersOf(mcpServers);
  const model = saved?.model ?? defaults.model;
  const effort = (saved?.effort as Effort | undefined) ?? defaults.effort;
  const posture = (MODE_IDS as readonly string[]).includes(saved?.mode ?? '')
    ? (saved?.mode as Posture)
    : (defaults.posture ?? 'bypass');
  return {
    cwd,
    posture,
    ...(model ? { model } : {}),
    ...(effort ? { effort } : {}),
    ...(servers.length > 0 ? { mcpServers: servers } : {}),
  };
}
