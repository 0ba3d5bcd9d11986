// Codex (and OpenAI strict json_schema) accept a strict subset of JSON Schema: every object lists
// all its properties as required (optional ones become nullable), forbids extra properties, uses
// anyOf instead of oneOf, and the root must be an object. This module turns a caller's schema into
// that subset and, for the result, undoes what it changed: it unwraps the root envelope and removes
// the nulls the model emitted for fields that were optional in the ORIGINAL schema.
import { ReinsError } from '../errors.js';
import { isRecord } from '../guards.js';
import type { JsonSchema } from '../spec.js';

export interface StrictSchemaPlan {
  /** The schema to send to the harness. */
  schema: JsonSchema;
  /** True when the root was not an object and got wrapped as `{ value: <root> }`. */
  wrapped: boolean;
  /** Turns a parsed result back into the shape the original schema describes. */
  restore(value: unknown): unknown;
}

export const ENVELOPE_KEY = 'value';

/** Keywords strict mode cannot express; a schema using them gets a clear error, not a silent rewrite. */
const UNSUPPORTED = [
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'patternProperties',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'prefixItems',
  'contains',
];
/** Annotations strict mode rejects or ignores; dropping them changes no accepted value. */
const DROPPED = ['$schema', '$id', '$comment', 'default', 'examples', 'readOnly', 'writeOnly', 'deprecated'];
const KEPT = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  '$ref',
  '$defs',
  'definitions',
  'title',
  'description',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
]);

function fail(path: string, why: string): never {
  throw new ReinsError(
    'invalid_input',
    `The output schema cannot be expressed in Codex's strict subset at ${path || '#'}: ${why}. ` +
      'Describe a closed object (listed properties, additionalProperties false) instead.',
    { operation: 'structured-output', data: { path: path || '#', reason: why } },
  );
}

function isObjectSchema(node: Record<string, unknown>): boolean {
  return node.type === 'object' || (node.type === undefined && isRecord(node.properties));
}

function allowsNull(node: Record<string, unknown>): boolean {
  const type = node.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if (node.const === null) return true;
  const branches = (node.anyOf ?? node.oneOf) as unknown;
  return Array.isArray(branches) && branches.some((branch) => isRecord(branch) && allowsNull(branch));
}

function makeNullable(node: Record<string, unknown>): Record<string, unknown> {
  if (allowsNull(node)) return node;
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...node.anyOf, { type: 'null' }] };
  if (typeof node.type === 'string' && node.const === undefined && node.$ref === undefined) {
    const out: Record<string, unknown> = { ...node, type: [node.type, 'null'] };
    if (Array.isArray(node.enum)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(node.type)) {
    const out: Record<string, unknown> = { ...node, type: [...node.type, 'null'] };
    if (Array.isArray(node.enum)) out.enum = [...node.enum, null];
    return out;
  }
  return { anyOf: [node, { type: 'null' }] };
}

function strictify(schema: unknown, path: string): Record<string, unknown> {
  if (schema === true || (isRecord(schema) && Object.keys(schema).length === 0)) {
    fail(path, 'it accepts any value');
  }
  if (!isRecord(schema)) fail(path, 'a schema must be an object');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (UNSUPPORTED.includes(key)) fail(path, `"${key}" is not supported`);
    if (DROPPED.includes(key)) continue;
    if (!KEPT.has(key)) fail(path, `unknown keyword "${key}"`);
    out[key] = value;
  }
  if (typeof out.$ref === 'string' && !/^#\/(\$defs|definitions)\//.test(out.$ref)) {
    fail(path, `only local $ref into $defs is supported, got "${out.$ref}"`);
  }
  for (const defsKey of ['$defs', 'definitions'] as const) {
    const defs = out[defsKey];
    if (isRecord(defs)) {
      out[defsKey] = Object.fromEntries(
        Object.entries(defs).map(([name, def]) => [name, strictify(def, `${path}/${defsKey}/${name}`)]),
      );
    }
  }
  if (out.oneOf !== undefined) {
    out.anyOf = out.oneOf;
    delete out.oneOf;
  }
  if (Array.isArray(out.anyOf)) {
    out.anyOf = out.anyOf.map((branch, index) => strictify(branch, `${path}/anyOf/${index}`));
  }
  if (out.items !== undefined) {
    if (Array.isArray(out.items)) fail(path, 'tuple "items" arrays are not supported');
    out.items = strictify(out.items, `${path}/items`);
  }
  if (isObjectSchema(out)) {
    if (out.additionalProperties !== undefined && out.additionalProperties !== false) {
      fail(path, 'open maps (additionalProperties other than false) are not supported');
    }
    const properties = isRecord(out.properties) ? out.properties : undefined;
    if (!properties || Object.keys(properties).length === 0) fail(path, 'an object must list its properties');
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        const strict = strictify(property, `${path}/properties/${name}`);
        return [name, required.has(name) ? strict : makeNullable(strict)];
      }),
    );
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

/** Removes nulls that stand for fields the original schema made optional (and not nullable). */
function stripOptionalNulls(value: unknown, schema: unknown, root: Record<string, unknown>, depth = 0): unknown {
  if (depth > 64 || !isRecord(schema)) return value;
  const resolved = resolveRef(schema, root);
  if (Array.isArray(value)) {
    return resolved.items === undefined
      ? value
      : value.map((v) => stripOptionalNulls(v, resolved.items, root, depth + 1));
  }
  if (!isRecord(value)) return value;
  const branches = (resolved.anyOf ?? resolved.oneOf) as unknown;
  if (Array.isArray(branches)) {
    // Use the first object branch that names every key present; others leave the value alone.
    const keys = Object.keys(value);
    const branch = branches.find((b) => {
      const r = isRecord(b) ? resolveRef(b, root) : undefined;
      return r && isRecord(r.properties) && keys.every((k) => k in (r.properties as object));
    });
    return branch === undefined ? value : stripOptionalNulls(value, branch, root, depth + 1);
  }
  if (!isRecord(resolved.properties)) return value;
  const properties = resolved.properties;
  const required = new Set(Array.isArray(resolved.required) ? (resolved.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const childSchema = properties[key];
    if (child === null && !required.has(key) && isRecord(childSchema) && !allowsNull(resolveRef(childSchema, root))) {
      continue;
    }
    out[key] = stripOptionalNulls(child, childSchema, root, depth + 1);
  }
  return out;
}

function resolveRef(schema: Record<string, unknown>, root: Record<string, unknown>): Record<string, unknown> {
  let node = schema;
  for (let hops = 0; typeof node.$ref === 'string' && hops < 32; hops++) {
    const parts = node.$ref.replace(/^#\//, '').split('/');
    let target: unknown = root;
    for (const part of parts)
      target = isRecord(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    if (!isRecord(target)) return node;
    node = target;
  }
  return node;
}

/** Prepares `schema` for Codex; throws invalid_input naming the place it cannot transform. */
export function toCodexStrictSchema(schema: JsonSchema): StrictSchemaPlan {
  const strict = strictify(schema, '');
  const wrapped = !isObjectSchema(strict);
  let sent = strict;
  if (wrapped) {
    const { $defs, definitions, ...inner } = strict;
    sent = {
      type: 'object',
      properties: { [ENVELOPE_KEY]: inner },
      required: [ENVELOPE_KEY],
      additionalProperties: false,
      ...($defs !== undefined ? { $defs } : {}),
      ...(definitions !== undefined ? { definitions } : {}),
    };
  }
  return {
    schema: sent,
    wrapped,
    restore(value: unknown): unknown {
      let inner = value;
      if (wrapped) {
        if (!isRecord(value) || !(ENVELOPE_KEY in value)) return value;
        inner = value[ENVELOPE_KEY];
      }
      return stripOptionalNulls(inner, schema, schema);
    },
  };
}
