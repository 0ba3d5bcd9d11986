// Pure translation the other way: what a Codex app-server client asks for -> what a Reins session
// takes (session spec, turn input, settings, permission decisions). A bad or unsupported param throws
// ParamsError naming the field, which the server answers with JSON-RPC -32602 and that sentence.
// A param Reins cannot honour is refused, never silently dropped (a sandbox the bridge cannot
// enforce, base instructions it cannot replace); params that only label or tune (personality,
// service tier names, analytics sources) are ignored.
import { isAbsolute } from 'node:path';
import {
  EFFORT_LEVELS,
  type Effort,
  type FileRef,
  type ImageRef,
  isRecord,
  type JsonSchema,
  type McpServerSpec,
  type PermissionDecision,
  type PermissionOption,
  type Posture,
  type TurnInput,
} from '@reins/core';
import type { AskForApproval, SandboxPolicy } from './wire.js';

/** A param the bridge cannot take: `field` is its path in the params (`input[1].url`). */
export class ParamsError extends Error {
  override readonly name = 'ParamsError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

type Params = Record<string, unknown>;

/** A request's params as an object (Codex requires `params`; an absent one reads as `{}`). */
export function paramsObject(params: unknown): Params {
  if (params === undefined || params === null) return {};
  if (!isRecord(params)) throw new ParamsError('params', 'must be an object.');
  return params;
}

/** Present and not null. */
function given(params: Params, field: string): boolean {
  return params[field] !== undefined && params[field] !== null;
}

export function requiredString(params: Params, field: string): string {
  const value = params[field];
  if (typeof value !== 'string' || value === '') throw new ParamsError(field, 'is required (a non-empty string).');
  return value;
}

export function optionalString(params: Params, field: string): string | undefined {
  if (!given(params, field)) return undefined;
  const value = params[field];
  if (typeof value !== 'string' || value === '') throw new ParamsError(field, 'must be a non-empty string.');
  return value;
}

function optionalBoolean(params: Params, field: string): boolean | undefined {
  if (!given(params, field)) return undefined;
  if (typeof params[field] !== 'boolean') throw new ParamsError(field, 'must be true or false.');
  return params[field] as boolean;
}

// ---- posture and sandbox ----

const APPROVAL_POLICIES = ['untrusted', 'on-request', 'never'];

/** approvalPolicy -> posture: `never` runs tools without asking; every other policy asks. */
export function postureOf(approvalPolicy: unknown, field = 'approvalPolicy'): Posture {
  if (approvalPolicy === 'never') return 'bypass';
  if (typeof approvalPolicy === 'string' && APPROVAL_POLICIES.includes(approvalPolicy)) return 'ask';
  if (isRecord(approvalPolicy) && isRecord(approvalPolicy.granular)) return 'ask';
  throw new ParamsError(field, `must be one of ${APPROVAL_POLICIES.join(', ')} or { granular: ... }.`);
}

/** What the thread reports as its approval policy for a posture. */
export function approvalPolicyOf(posture: Posture): AskForApproval {
  return posture === 'ask' ? 'untrusted' : 'never';
}

/**
 * What the thread reports as its sandbox: workspace-write for posture workspace (its network is reported
 * on: Reins' confinement does not cut the tools' network, docs/architecture/contract.md "Postures"),
 * else full access, the approvals being the only gate.
 */
export function sandboxPolicyOf(posture: Posture): SandboxPolicy {
  if (posture !== 'workspace') return { type: 'dangerFullAccess' };
  return {
    type: 'workspaceWrite',
    writableRoots: [],
    networkAccess: true,
    excludeTmpdirEnvVar: false,
    excludeSlashTmp: false,
  };
}

/**
 * The posture a Codex sandbox asks for on top of an approval posture. `workspace-write` under "never"
 * is posture `workspace` (the harness's own sandbox or Reins' confinement holds it to the cwd; a harness
 * that has neither refuses the session). Under approvals (`ask`) the client's answers are the gate, so
 * a narrower sandbox is taken as it is. `read-only` under "never" no posture gives: refused rather than
 * run with more access than was asked for. Full access leaves the posture as it was.
 */
export function sandboxPosture(sandbox: unknown, posture: Posture, field: string): Posture {
  const full = sandbox === 'danger-full-access' || (isRecord(sandbox) && sandbox.type === 'dangerFullAccess');
  if (sandbox === undefined || sandbox === null || full) return posture;
  const workspace = sandbox === 'workspace-write' || (isRecord(sandbox) && sandbox.type === 'workspaceWrite');
  const known =
    workspace ||
    sandbox === 'read-only' ||
    (isRecord(sandbox) && ['readOnly', 'externalSandbox'].includes(String(sandbox.type)));
  if (!known) throw new ParamsError(field, 'is not a Codex sandbox mode.');
  if (posture !== 'bypass') return posture;
  if (workspace) return 'workspace';
  throw new ParamsError(
    field,
    'the Reins bridge cannot make a harness read-only; use workspace-write (writes kept to the cwd), danger-full-access, or an approvalPolicy other than "never" so every action asks first.',
  );
}

// ---- threads ----

export interface ThreadRequest {
  cwd: string;
  posture: Posture;
  model?: string;
  systemPrompt?: { append: string };
  mcpServers?: McpServerSpec[];
  ephemeral?: boolean;
  /** Posture workspace with the tools' network off (`config.sandbox_workspace_write.network_access`). */
  toolsNetworkOff?: true;
}

export interface ThreadDefaults {
  cwd: string;
  posture: Posture;
  model?: string;
  /** The provider the bridge names (config/read's model_provider): a client may send it back. */
  provider?: string;
}

/** MCP servers in Codex's config shape (`config.mcp_servers.<name>`) -> Reins MCP server specs. */
export function mcpServersOf(servers: unknown): McpServerSpec[] {
  if (!isRecord(servers)) throw new ParamsError('config.mcp_servers', 'must be an object of servers by name.');
  return Object.entries(servers).map(([name, server]) => {
    const field = `config.mcp_servers.${name}`;
    if (!isRecord(server)) throw new ParamsError(field, 'must be an object.');
    const strings = (value: unknown, what: string): Record<string, string> | undefined => {
      if (value === undefined || value === null) return undefined;
      if (!isRecord(value) || !Object.values(value).every((entry) => typeof entry === 'string')) {
        throw new ParamsError(`${field}.${what}`, 'must map names to strings.');
      }
      return value as Record<string, string>;
    };
    if (typeof server.command === 'string' && server.command !== '') {
      const args = server.args ?? [];
      if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) {
        throw new ParamsError(`${field}.args`, 'must be a list of strings.');
      }
      const env = strings(server.env, 'env');
      return { name, transport: 'stdio', command: server.command, args, ...(env ? { env } : {}) };
    }
    if (typeof server.url === 'string' && server.url !== '') {
      const headers = strings(server.http_headers, 'http_headers');
      return { name, transport: 'http', url: server.url, ...(headers ? { headers } : {}) };
    }
    throw new ParamsError(field, 'needs a command (stdio) or a url (streamable HTTP).');
  });
}

/** thread/start and thread/resume params -> the session spec they ask for. */
export function threadRequestOf(params: Params, defaults: ThreadDefaults): ThreadRequest {
  const cwd = optionalString(params, 'cwd') ?? defaults.cwd;
  if (!isAbsolute(cwd)) throw new ParamsError('cwd', `must be an absolute path (got "${cwd}").`);
  const asked = given(params, 'approvalPolicy') ? postureOf(params.approvalPolicy) : defaults.posture;
  // No sandbox named: the bridge's own (launched with sandbox_mode=workspace-write, posture workspace).
  const sandbox = given(params, 'sandbox') || defaults.posture !== 'workspace' ? params.sandbox : 'workspace-write';
  const posture = sandboxPosture(sandbox, asked === 'workspace' ? 'bypass' : asked, 'sandbox');
  if (given(params, 'baseInstructions')) {
    throw new ParamsError(
      'baseInstructions',
      'a Reins harness keeps its own system prompt; send developerInstructions to add to it.',
    );
  }
  for (const field of ['modelProvider', 'serviceTier']) {
    if (given(params, field) && !(field === 'modelProvider' && params[field] === defaults.provider)) {
      throw new ParamsError(field, 'the harness behind the Reins bridge chooses its own provider and service tier.');
    }
  }
  const model = optionalString(params, 'model') ?? defaults.model;
  const instructions = optionalString(params, 'developerInstructions');
  let mcpServers: McpServerSpec[] | undefined;
  let toolsNetworkOff = false;
  if (given(params, 'config')) {
    const config = params.config;
    if (!isRecord(config)) throw new ParamsError('config', 'must be an object.');
    for (const key of Object.keys(config)) {
      if (key === 'mcp_servers' || (key === 'sandbox_workspace_write' && posture === 'workspace')) continue;
      throw new ParamsError(
        `config.${key}`,
        'the Reins bridge takes only config.mcp_servers (MCP servers to add), and sandbox_workspace_write with a workspace-write sandbox.',
      );
    }
    if (config.mcp_servers !== undefined) mcpServers = mcpServersOf(config.mcp_servers);
    const tuning = config.sandbox_workspace_write;
    if (tuning !== undefined && (!isRecord(tuning) || Object.keys(tuning).some((key) => key !== 'network_access'))) {
      throw new ParamsError('config.sandbox_workspace_write', 'the Reins bridge takes only its network_access.');
    }
    if (isRecord(tuning) && tuning.network_access === false) toolsNetworkOff = true;
  }
  const ephemeral = optionalBoolean(params, 'ephemeral');
  return {
    cwd,
    posture,
    ...(model ? { model } : {}),
    ...(instructions ? { systemPrompt: { append: instructions } } : {}),
    ...(mcpServers?.length ? { mcpServers } : {}),
    ...(ephemeral ? { ephemeral } : {}),
    ...(toolsNetworkOff ? { toolsNetworkOff } : {}),
  };
}

/**
 * A workspace thread that asks for its tools' network off needs a harness whose own sandbox cuts it
 * (`sandbox` implemented `native`: Codex, Claude Code); Reins' confinement leaves it on, so there the
 * request is refused rather than run with more access than was asked for.
 */
export function checkToolsNetwork(request: ThreadRequest, sandboxHow: string | undefined, harness: string): void {
  if (!request.toolsNetworkOff || sandboxHow === 'native') return;
  throw new ParamsError(
    'config.sandbox_workspace_write.network_access',
    `${harness} under posture workspace keeps its tools' network (Reins' confinement does not cut it); send network_access true or leave it out.`,
  );
}

// ---- turns ----

/** Codex reasoning effort -> Reins effort (the same names; Codex's `none` has no Reins level, `default` is no change). */
export function effortOf(value: unknown, field = 'effort'): Effort | undefined {
  // `default` is what model/list names the harness's own choice: no change.
  if (value === undefined || value === null || value === 'default') return undefined;
  if (typeof value === 'string' && (EFFORT_LEVELS as readonly string[]).includes(value)) return value as Effort;
  throw new ParamsError(field, `must be one of ${EFFORT_LEVELS.join(', ')} (got ${JSON.stringify(value)}).`);
}

export function outputSchemaOf(value: unknown): JsonSchema | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw new ParamsError('outputSchema', 'must be a JSON Schema object.');
  return value;
}

/** `data:<type>;base64,<data>` -> an inline image; any other URL has no Reins image source. */
function imageOfUrl(url: string, field: string): ImageRef {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (!match) {
    throw new ParamsError(field, 'a Reins harness takes an image as a local path (localImage) or a base64 data: URL.');
  }
  return { source: 'data', mediaType: match[1] as string, data: match[2] as string };
}

/**
 * Codex UserInput[] -> one Reins turn input. Text parts are joined by blank lines; a mention becomes
 * a file reference; images keep their path or inline data. Audio and skills have no Reins input, so
 * they are refused rather than dropped.
 */
export function turnInputOf(input: unknown): TurnInput {
  if (!Array.isArray(input) || input.length === 0) {
    throw new ParamsError('input', 'must be a non-empty list of user inputs.');
  }
  const texts: string[] = [];
  const images: ImageRef[] = [];
  const files: FileRef[] = [];
  input.forEach((part: unknown, index) => {
    const field = `input[${index}]`;
    if (!isRecord(part)) throw new ParamsError(field, 'must be an object with a type.');
    switch (part.type) {
      case 'text':
        if (typeof part.text !== 'string') throw new ParamsError(`${field}.text`, 'must be a string.');
        if (part.text !== '') texts.push(part.text);
        break;
      case 'localImage':
        if (typeof part.path !== 'string' || part.path === '') {
          throw new ParamsError(`${field}.path`, 'must be the path of an image file.');
        }
        images.push({ source: 'path', path: part.path });
        break;
      case 'image':
        if (typeof part.url !== 'string') {
          throw new ParamsError(
            `${field}.url`,
            'a Reins harness takes an image by data: URL or local path, not a file id.',
          );
        }
        images.push(imageOfUrl(part.url, `${field}.url`));
        break;
      case 'mention':
        if (typeof part.path !== 'string' || part.path === '') {
          throw new ParamsError(`${field}.path`, 'must be the path the mention points at.');
        }
        files.push({ path: part.path });
        break;
      case 'audio':
      case 'localAudio':
      case 'skill':
        throw new ParamsError(`${field}.type`, `"${part.type}" input has no Reins equivalent.`);
      default:
        throw new ParamsError(`${field}.type`, `unknown input type ${JSON.stringify(part.type)}.`);
    }
  });
  if (texts.length === 0 && images.length === 0 && files.length === 0) {
    throw new ParamsError('input', 'carries no text, image or file.');
  }
  return {
    text: texts.join('\n\n'),
    ...(images.length > 0 ? { images } : {}),
    ...(files.length > 0 ? { files } : {}),
  };
}

/** Per-turn overrides a Reins session cannot take after it started: refused unless they change nothing. */
export function checkTurnOverrides(params: Params, thread: { cwd: string; posture: Posture }): void {
  const cwd = optionalString(params, 'cwd');
  if (cwd !== undefined && cwd !== thread.cwd) {
    throw new ParamsError('cwd', `a Reins session keeps the cwd it started in (${thread.cwd}); start a new thread.`);
  }
  // Posture workspace is approval policy "never" with a workspace-write sandbox.
  const approvals = thread.posture === 'workspace' ? 'bypass' : thread.posture;
  if (given(params, 'approvalPolicy') && postureOf(params.approvalPolicy) !== approvals) {
    throw new ParamsError(
      'approvalPolicy',
      `a Reins session keeps its approval posture (${thread.posture}); start a new thread to change it.`,
    );
  }
  if (
    given(params, 'sandboxPolicy') &&
    sandboxPosture(params.sandboxPolicy, approvals, 'sandboxPolicy') !== thread.posture
  ) {
    throw new ParamsError(
      'sandboxPolicy',
      `a Reins session keeps the sandbox it started with (posture ${thread.posture}); start a new thread to change it.`,
    );
  }
}

// ---- approvals ----

export interface ApprovalAnswer {
  decision: PermissionDecision;
  /** Codex `cancel`: decline and stop the turn. */
  stopTurn: boolean;
}

function optionOfKind(options: PermissionOption[], kinds: PermissionOption['kind'][]): string | undefined {
  return options.find((option) => kinds.includes(option.kind))?.id;
}

/**
 * The client's answer to an approval request -> a Reins decision. Accept allows once, the session-wide
 * accepts (acceptForSession, an exec-policy or network amendment) allow for the session, decline and
 * cancel deny (cancel also stops the turn, as in Codex). The harness's own option of that kind is
 * picked when it offered one. Anything unreadable denies: a tool never runs on a malformed answer.
 */
export function approvalAnswerOf(answer: unknown, options: PermissionOption[]): ApprovalAnswer {
  const decision = isRecord(answer) ? answer.decision : undefined;
  const allow = (scope: 'once' | 'session'): ApprovalAnswer => {
    const optionId =
      scope === 'session'
        ? (optionOfKind(options, ['allow_always']) ?? optionOfKind(options, ['allow_once']))
        : optionOfKind(options, ['allow_once']);
    return { decision: { behavior: 'allow', scope, ...(optionId ? { optionId } : {}) }, stopTurn: false };
  };
  const deny = (stopTurn: boolean, message?: string): ApprovalAnswer => {
    const optionId = optionOfKind(options, ['reject_once']);
    return {
      decision: { behavior: 'deny', ...(optionId ? { optionId } : {}), ...(message ? { message } : {}) },
      stopTurn,
    };
  };
  if (decision === 'accept') return allow('once');
  if (decision === 'acceptForSession') return allow('session');
  if (
    isRecord(decision) &&
    ('acceptWithExecpolicyAmendment' in decision || 'applyNetworkPolicyAmendment' in decision)
  ) {
    return allow('session');
  }
  if (decision === 'decline') return deny(false);
  if (decision === 'cancel') return deny(true);
  return deny(false, 'The client gave no decision the bridge could read; declined.');
}
