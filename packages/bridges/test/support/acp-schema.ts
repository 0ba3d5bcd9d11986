// The ACP SDK's own JSON Schema of protocol version 1 (the exact @agentclientprotocol/sdk version in
// the workspace ships it), compiled once, and a checker for every message an ACP agent writes: a
// `session/update` notification against SessionNotification, a request to the client against its
// request type, and an answer against the response type of the request it answers (an unstable
// method's, `session/fork`, against the SDK's unstable schema of the same version).
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
