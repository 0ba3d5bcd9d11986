// The JSON schema the pinned @agentclientprotocol/sdk ships (schema/v1 or schema/v2), and a judge of every
// message an agent writes: each $def names its method and side (`x-method`, `x-side`), so the type of an
// answer, an agent's request or notification comes from the schema itself, not from a list kept here.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);

/** The SDK's folder (its package.json is not in its exports; the main entry is dist/v1/stable/acp.js). */
function sdkDir(): string {
  return join(dirname(require.resolve('@agentclientprotocol/sdk')), '..', '..', '..');
}

export function sdkVersion(): string {
  return (JSON.parse(readFileSync(join(sdkDir(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The id the schema is registered under in ajv (any name; its $defs are addressed through it). */
const SCHEMA_ID = 'acp-schema';

type Def = { 'x-method'?: string; 'x-side'?: string };
export type WireMessage = Record<string, unknown>;

export class AcpSchema {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  private readonly defs: Record<string, Def>;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly protocol: 1 | 2) {
    const schema = JSON.parse(readFileSync(join(sdkDir(), 'schema', `v${protocol}`, 'schema.json'), 'utf8'));
    this.defs = schema.$defs;
    this.ajv.addSchema({ ...schema, $id: SCHEMA_ID });
  }

  /** The $def of `method` on `side` whose name ends with `suffix` (Request, Response, Notification). */
  private typeOf(method: string, side: string[], suffix: string): string | undefined {
    return Object.entries(this.defs).find(
      ([name, def]) => def['x-method'] === method && side.includes(def['x-side'] ?? '') && name.endsWith(suffix),
    )?.[0];
  }

  private check(type: string, value: unknown): string | undefined {
    let validate = this.validators.get(type);
    if (!validate) {
      validate = this.ajv.getSchema(`${SCHEMA_ID}#/$defs/${type}`) as ValidateFunction;
      this.validators.set(type, validate);
    }
    if (validate(value)) return undefined;
    // What was there, so a report names the offending value, not only the rule it broke.
    const where = validate.errors?.[0]?.instancePath ?? '';
    const got = JSON.stringify(valueAt(value, where))?.slice(0, 200);
    return `${type}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })} (at ${where || '/'}: ${got})`;
  }

  /** Why params acp-check itself would send break the schema (a bug here, never the agent's fault). */
  requestViolation(method: string, params: unknown): string | undefined {
    const type = this.typeOf(method, ['agent'], 'Request') ?? this.typeOf(method, ['agent'], 'Notification');
    return type ? this.check(type, params) : undefined;
  }

  /** Why a message the agent wrote breaks the schema, or undefined; `answered` names the request an answer answers. */
  violation(message: WireMessage, answered: (id: unknown) => string | undefined): string | undefined {
    if (message.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 message (no "jsonrpc": "2.0")';
    const method = message.method;
    if (typeof method === 'string') {
      // Extension methods (a leading underscore) are the agent's own business.
      if (method.startsWith('_')) return undefined;
      const isRequest = message.id !== undefined;
      const type = isRequest
        ? this.typeOf(method, ['client'], 'Request')
        : this.typeOf(method, ['client', 'protocol'], 'Notification');
      if (!type)
        return `an agent sends no ${method} ${isRequest ? 'request' : 'notification'} in ACP v${this.protocol}`;
      return this.check(type, message.params);
    }
    if ('error' in message) return this.check('Error', message.error);
    const request = answered(message.id);
    if (request === undefined) return `an answer to id ${JSON.stringify(message.id)}, which no request carried`;
    const type = this.typeOf(request, ['agent'], 'Response');
    return type ? this.check(type, message.result) : undefined;
  }
}

/** The value a JSON pointer (ajv's instancePath) names. */
function valueAt(value: unknown, pointer: string): unknown {
  let here = value;
  for (const key of pointer.split('/').slice(1)) {
    here = (here as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return here;
}

const compiled = new Map<1 | 2, AcpSchema>();

/** One compiled schema per protocol version for the process (compiling is the slow part). */
export function acpSchema(protocol: 1 | 2): AcpSchema {
  const schema = compiled.get(protocol) ?? new AcpSchema(protocol);
  compiled.set(protocol, schema);
  return schema;
}
