// The ACP SDK's own JSON Schema of protocol version 1 (the exact @agentclientprotocol/sdk version in
// the workspace ships it), compiled once, and a checker for every message an ACP agent writes: a
// `session/update` notification against SessionNotification, a request to the client against its
// request type, and an answer against the response type of the request it answers (an unstable
// method's, `session/fork`, against the SDK's unstable schema of the same version). The same for ACP v2
// (the SDK's schema/v2/schema.json, draft 2.0.0-alpha): acpV2Violations checks both directions.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
/** The SDK's folder: its entry point is dist/v1/stable/acp.js (package.json is not in its exports). */
const SDK_DIR = join(dirname(require.resolve('@agentclientprotocol/sdk')), '..', '..', '..');

/** Method -> the schema type of its answer (agent side) or of its params (client side). */
const RESPONSES: Record<string, string> = {
  initialize: 'InitializeResponse',
  'session/new': 'NewSessionResponse',
  'session/load': 'LoadSessionResponse',
  'session/resume': 'ResumeSessionResponse',
  'session/prompt': 'PromptResponse',
  'session/set_config_option': 'SetSessionConfigOptionResponse',
  'session/set_mode': 'SetSessionModeResponse',
  'session/close': 'CloseSessionResponse',
  'session/list': 'ListSessionsResponse',
};
/** Unstable methods the bridge serves: their answers are typed only in schema.unstable.json. */
const UNSTABLE_RESPONSES: Record<string, string> = {
  'session/fork': 'ForkSessionResponse',
};
const CLIENT_REQUESTS: Record<string, string> = {
  'session/request_permission': 'RequestPermissionRequest',
};

export interface AcpViolation {
  message: unknown;
  errors: string;
}

let compiled: AcpSchema | undefined;

export class AcpSchema {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    schema: Record<string, unknown>,
    private readonly unstable?: AcpSchema,
  ) {
    this.ajv.addSchema({ ...schema, $id: 'acp' });
  }

  /** The SDK version whose schema this is. */
  static sdkVersion(): string {
    return (JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { version: string }).version;
  }

  check(type: string, value: unknown): string | undefined {
    let validate = this.validators.get(type);
    if (!validate) {
      validate = this.ajv.getSchema(`acp#/$defs/${type}`);
      if (!validate) throw new Error(`the ACP schema has no ${type}`);
      this.validators.set(type, validate);
    }
    if (validate(value)) return undefined;
    return this.ajv.errorsText(validate.errors, { separator: '; ' });
  }

  /** One message the agent wrote; `methodOf` names the request an answer answers. */
  message(message: Record<string, unknown>, methodOf: (id: unknown) => string | undefined): string | undefined {
    if (message.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 message';
    if (typeof message.method === 'string') {
      if (message.id === undefined) {
        if (message.method === 'session/update') return this.check('SessionNotification', message.params);
        // The protocol's own: an agent that stops waiting for a request it made says so.
        if (message.method === '$/cancel_request') return this.check('CancelRequestNotification', message.params);
        return `an agent sends no ${message.method} notification`;
      }
      const type = CLIENT_REQUESTS[message.method];
      return type ? this.check(type, message.params) : `an agent makes no ${message.method} request in this bridge`;
    }
    if (message.error !== undefined) return this.check('Error', message.error);
    const method = methodOf(message.id);
    if (!method) return 'an answer to no request';
    // The legacy session/set_model has no schema (it is not in the SDK's); its answer is empty.
    if (method === 'session/set_model')
      return JSON.stringify(message.result) === '{}' ? undefined : 'set_model answers {}';
    const unstableType = UNSTABLE_RESPONSES[method];
    if (unstableType && this.unstable) return this.unstable.check(unstableType, message.result);
    const type = RESPONSES[method];
    return type ? this.check(type, message.result) : `no response type known for ${method}`;
  }
}

/** ACP v2: agent methods -> [params type, answer type]; the agent's notifications and requests. */
const V2_AGENT_METHODS: Record<string, [string, string]> = {
  initialize: ['InitializeRequest', 'InitializeResponse'],
  'session/new': ['NewSessionRequest', 'NewSessionResponse'],
  'session/resume': ['ResumeSessionRequest', 'ResumeSessionResponse'],
  'session/prompt': ['PromptRequest', 'PromptResponse'],
  'session/set_config_option': ['SetSessionConfigOptionRequest', 'SetSessionConfigOptionResponse'],
  'session/close': ['CloseSessionRequest', 'CloseSessionResponse'],
  'session/list': ['ListSessionsRequest', 'ListSessionsResponse'],
};
const V2_NOTIFICATIONS: Record<string, string> = {
  'session/update': 'UpdateSessionNotification',
  'session/cancel': 'CancelSessionNotification',
  '$/cancel_request': 'CancelRequestNotification',
};
const V2_CLIENT_METHODS: Record<string, [string, string]> = {
  'session/request_permission': ['RequestPermissionRequest', 'RequestPermissionResponse'],
};

let compiledV2: AcpSchema | undefined;

export function acpSchemaV2(): AcpSchema {
  compiledV2 ??= new AcpSchema(
    JSON.parse(readFileSync(join(SDK_DIR, 'schema', 'v2', 'schema.json'), 'utf8')) as Record<string, unknown>,
  );
  return compiledV2;
}

/** One v2 message either side wrote, against the v2 schema; `methodOf` names the request an answer answers. */
function v2Violation(
  schema: AcpSchema,
  message: Record<string, unknown>,
  methodOf: (id: unknown) => string | undefined,
): string | undefined {
  if (message.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 message';
  const methods = { ...V2_AGENT_METHODS, ...V2_CLIENT_METHODS };
  if (typeof message.method === 'string') {
    if (message.id === undefined) {
      const type = V2_NOTIFICATIONS[message.method];
      return type ? schema.check(type, message.params) : `no v2 notification ${message.method}`;
    }
    const types = methods[message.method];
    return types ? schema.check(types[0], message.params) : `no v2 request ${message.method}`;
  }
  if (message.error !== undefined) return schema.check('Error', message.error);
  const method = methodOf(message.id);
  const types = method ? methods[method] : undefined;
  if (!types) return `an answer to no known request (${String(method)})`;
  return schema.check(types[1], message.result);
}

/** Every message of one v2 connection (client -> agent and agent -> client) that breaks the v2 schema. */
export function acpV2Violations(
  fromClient: Record<string, unknown>[],
  fromAgent: Record<string, unknown>[],
): AcpViolation[] {
  const schema = acpSchemaV2();
  const requested = (messages: Record<string, unknown>[]) => {
    const methods = new Map<unknown, string>();
    for (const message of messages)
      if (typeof message.method === 'string' && message.id !== undefined) methods.set(message.id, message.method);
    return methods;
  };
  const byClient = requested(fromClient);
  const byAgent = requested(fromAgent);
  const out: AcpViolation[] = [];
  for (const message of fromAgent) {
    const errors = v2Violation(schema, message, (id) => byClient.get(id));
    if (errors) out.push({ message, errors });
  }
  for (const message of fromClient) {
    const errors = v2Violation(schema, message, (id) => byAgent.get(id));
    if (errors) out.push({ message, errors });
  }
  return out;
}

export function acpSchema(): AcpSchema {
  const read = (name: string) =>
    JSON.parse(readFileSync(join(SDK_DIR, 'schema', 'v1', name), 'utf8')) as Record<string, unknown>;
  compiled ??= new AcpSchema(read('schema.json'), new AcpSchema(read('schema.unstable.json')));
  return compiled;
}

/** Every message of one connection the agent wrote that breaks the schema. */
export function acpViolations(sent: Record<string, unknown>[], received: Record<string, unknown>[]): AcpViolation[] {
  const methods = new Map<unknown, string>();
  for (const message of sent)
    if (typeof message.method === 'string' && message.id !== undefined) methods.set(message.id, message.method);
  const schema = acpSchema();
  const out: AcpViolation[] = [];
  for (const message of received) {
    const errors = schema.message(message, (id) => methods.get(id));
    if (errors) out.push({ message, errors });
  }
  return out;
}
