// bridges.md's Codex conformance table names every stable client method of the pinned Codex (served,
// or refused with the error and why): a new stable method in the pinned schema without a row fails
// here. A row may name a family with a wildcard (`fs/*`, `command/exec*`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const DOC = new URL('../../../../docs/architecture/bridges.md', import.meta.url);
const SCHEMA = new URL('../../test/codex-schema/codex-app-server.schema.json', import.meta.url);

/** The client methods of the pinned (stable) schema. */
function stableMethods(): string[] {
  const schema = JSON.parse(readFileSync(SCHEMA, 'utf8')) as {
    definitions: { ClientRequest: { oneOf: { properties: { method: { enum: string[] } } }[] } };
  };
  return schema.definitions.ClientRequest.oneOf.flatMap((branch) => branch.properties.method.enum);
}

/** The method names and wildcards in the first column of the Codex section's conformance table. */
function tableNames(): string[] {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('# Codex app-server out'));
  const table = section.slice(section.indexOf('## Conformance: method by method'));
  const rows = table.split('\n').filter((line) => line.startsWith('| '));
  return rows.flatMap((row) => {
    const first = row.split(' | ')[0] ?? '';
    return [...first.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  });
}

const covers = (name: string, method: string) =>
  name === method || (name.endsWith('*') && method.startsWith(name.slice(0, -1)));

describe("bridges.md's Codex conformance table", () => {
  it('has a row for every stable client method of the pinned Codex', () => {
    const names = tableNames();
    expect(names.length).toBeGreaterThan(20);
    const methods = stableMethods();
    expect(methods.length).toBeGreaterThan(100);
    const missing = methods.filter((method) => !names.some((name) => covers(name, method)));
    expect(missing, 'stable methods without a row in docs/architecture/bridges.md').toEqual([]);
  });
});
