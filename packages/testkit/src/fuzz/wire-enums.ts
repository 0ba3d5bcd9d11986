// Which fields of a wire are enums, read from the wire's own type definitions, so the fuzzer puts unknown
// values exactly where a newer harness would (and a regenerated wire is covered without editing a list).
// Two readers: TypeScript type files (generated ones such as Codex's ts-rs output, or hand-written mirrors)
// and a JSON Schema (the ACP SDK's). Both answer key -> declared values, merged over the whole wire.
import { isRecord } from '@reins/core';
import type { EnumField } from './mutate.js';

/** Removes comments; string literals (which may hold "//") are kept. */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"\\])\/\/[^\n]*/gm, '$1');
}

/** The bodies of `type Name = ...;` (up to the `;` outside any brackets). */
function typeAliases(source: string): Map<string, string> {
  const aliases = new Map<string, string>();
  const start = /\btype\s+([A-Za-z_]\w*)(?:<[^=]*>)?\s*=/g;
  for (let match = start.exec(source); match; match = start.exec(source)) {
    let depth = 0;
    let quote: string | undefined;
    let end = match.index + match[0].length;
    for (; end < source.length; end++) {
      const char = source[end] as string;
      if (quote) {
        if (char === quote) quote = undefined;
        continue;
      }
      if (char === '"' || char === "'") quote = char;
      else if ('{([<'.includes(char)) depth++;
      else if ('})]>'.includes(char)) depth--;
      else if (char === ';' && depth <= 0) break;
    }
    aliases.set(match[1] as string, source.slice(match.index + match[0].length, end));
  }
  return aliases;
}

const LITERAL = /^(?:'([^']*)'|"([^"]*)")$/;
/** A union of string literals, identifiers and `null`, as a field's type starts. */
const UNION = /^\s*\|?\s*((?:'[^']*'|"[^"]*"|[A-Za-z_]\w*)(?:\s*\|\s*(?:'[^']*'|"[^"]*"|[A-Za-z_]\w*))*)/;

function unionMembers(text: string): string[] {
  const match = UNION.exec(text);
  return match ? (match[1] as string).split('|').map((part) => part.trim()) : [];
}

/** The literal values of a union; identifiers resolve through literal-only aliases. */
function literalsOf(members: readonly string[], literalAliases: ReadonlyMap<string, readonly string[]>): string[] {
  const values: string[] = [];
  for (const member of members) {
    const literal = LITERAL.exec(member);
    if (literal) values.push((literal[1] ?? literal[2]) as string);
    else values.push(...(literalAliases.get(member) ?? []));
  }
  return values;
}

function add(out: Map<string, Set<string>>, key: string, values: readonly string[]): void {
  if (values.length === 0) return;
  const set = out.get(key) ?? new Set<string>();
  for (const value of values) set.add(value);
  out.set(key, set);
}

function toFields(out: Map<string, Set<string>>): EnumField[] {
  return [...out]
    .map(([key, values]) => ({ key, values: [...values].sort() }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * Enum-typed fields declared in TypeScript sources: every `key: 'a' | 'b'` (or `"key": "a"` of a tagged
 * union), and every field typed by an alias that is a union of string literals only.
 */
export function enumFieldsFromTypeScript(sources: readonly string[]): EnumField[] {
  const stripped = sources.map(stripComments);
  const literalAliases = new Map<string, string[]>();
  for (const source of stripped) {
    for (const [name, body] of typeAliases(source)) {
      const compact = body
        .replace(/\s+/g, ' ')
        .trim()
        .replace(/^\|\s*/, '');
      const members = compact.split('|').map((part) => part.trim());
      if (members.length > 0 && members.every((member) => LITERAL.test(member))) {
        literalAliases.set(name, literalsOf(members, new Map()));
      }
    }
  }
  const out = new Map<string, Set<string>>();
  const field = /(?:^|[\s{;,(|])(?:"([A-Za-z_]\w*)"|'([A-Za-z_]\w*)'|([A-Za-z_]\w*))\??\s*:(?!:)/g;
  for (const source of stripped) {
    for (let match = field.exec(source); match; match = field.exec(source)) {
      const key = (match[1] ?? match[2] ?? match[3]) as string;
      add(out, key, literalsOf(unionMembers(source.slice(match.index + match[0].length)), literalAliases));
    }
  }
  return toFields(out);
}

/** Enum-typed properties of a JSON Schema (const, enum, and oneOf/anyOf of those, through $ref). */
export function enumFieldsFromJsonSchema(schema: unknown): EnumField[] {
  const root = isRecord(schema) ? schema : {};
  const resolve = (ref: string): unknown => {
    let node: unknown = root;
    for (const part of ref.replace(/^#\//, '').split('/')) node = isRecord(node) ? node[part] : undefined;
    return node;
  };
  const literalCache = new Map<unknown, string[] | undefined>();
  const literals = (node: unknown, seen: Set<unknown>): string[] | undefined => {
    if (!isRecord(node) || seen.has(node)) return undefined;
    if (literalCache.has(node)) return literalCache.get(node);
    seen.add(node);
    let result: string[] | undefined;
    if (typeof node.const === 'string') result = [node.const];
    else if (Array.isArray(node.enum)) result = node.enum.filter((value): value is string => typeof value === 'string');
    else if (typeof node.$ref === 'string') result = literals(resolve(node.$ref), seen);
    else {
      const branches = [node.oneOf, node.anyOf].find(Array.isArray) as unknown[] | undefined;
      if (branches) {
        // null, and a bare string branch (an open enum: "custom or future values"), add no literal.
        const open = (branch: unknown) =>
          isRecord(branch) && (branch.type === 'null' || (branch.type === 'string' && !('const' in branch)));
        const parts = branches.filter((branch) => !open(branch)).map((branch) => literals(branch, seen));
        if (parts.length > 0 && parts.every((part) => part !== undefined)) result = parts.flat() as string[];
      }
    }
    seen.delete(node);
    literalCache.set(node, result && result.length > 0 ? result : undefined);
    return literalCache.get(node);
  };
  const out = new Map<string, Set<string>>();
  const stack: unknown[] = [root];
  const visited = new Set<unknown>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || visited.has(node)) continue;
    visited.add(node);
    if (isRecord(node) && isRecord(node.properties)) {
      for (const [key, property] of Object.entries(node.properties)) add(out, key, literals(property, new Set()) ?? []);
    }
    for (const child of Object.values(node)) stack.push(child);
  }
  return toFields(out);
}

/** One list from several (values of the same key are merged). */
export function mergeEnumFields(...lists: readonly (readonly EnumField[])[]): EnumField[] {
  const out = new Map<string, Set<string>>();
  for (const list of lists) for (const field of list) add(out, field.key, field.values);
  return toFields(out);
}
