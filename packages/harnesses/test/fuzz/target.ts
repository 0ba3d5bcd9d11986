// What one harness contributes to the translation fuzzer (src/translate.fuzz.test.ts): its recorded
// fixtures, what its wire calls types and enums, and a driver that feeds frames through its PURE
// translation and a checked core stream the way its adapter does (turns started and completed where the
// adapter does it; the adapter's own guards kept, its chassis backstop left out: the translation must not
// need it).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckedEventStream, EnumField, Fixture, FixtureFrame, MutationOptions } from '@reins/testkit';
import { enumFieldsFromTypeScript, readFixtureSync } from '@reins/testkit';

export interface FuzzTarget {
  name: string;
  corpus: readonly Fixture[];
  mutation: MutationOptions;
  /** Feeds one (damaged) recording through the translation into `stream`. Must not throw itself. */
  replay(frames: readonly FixtureFrame[], stream: CheckedEventStream, fixture: Fixture): void;
}

export const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Every reins/v1 fixture under `dir` (recursively), in name order. */
export function loadCorpus(dir: string): Fixture[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => readFixtureSync(join(dir, name)));
}

/** Enum fields declared in TypeScript files (paths relative to src/, folders read recursively). */
export function enumFieldsOf(...paths: string[]): EnumField[] {
  const files = paths.flatMap((path) =>
    path.endsWith('.ts')
      ? [join(SRC, path)]
      : (readdirSync(join(SRC, path), { recursive: true }) as string[])
          .filter((name) => name.endsWith('.ts'))
          .map((name) => join(SRC, path, name)),
  );
  return enumFieldsFromTypeScript(files.map((file) => readFileSync(file, 'utf8')));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of the first text block of a user message Reins sent (the turn input). */
export function inputText(value: unknown): string {
  return typeof value === 'string' ? value : 'fuzzed turn';
}
