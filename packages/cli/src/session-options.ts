// The options `run` and `chat` share: parsing, validation (bad input -> UsageError, exit 2), and
// turning them into a SessionSpec. One home, so both commands accept exactly the same flags.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import {
  assertValidSchema,
  EFFORT_LEVELS,
  type Effort,
  HARNESS_IDS,
  type HarnessId,
  isHarnessId,
  type JsonSchema,
  POSTURES,
  type Posture,
  ReinsError,
  type SessionSpec,
} from '@reins/core';
import { parseFlags } from './args.js';
import { type CliIo, UsageError } from './io.js';

export const SESSION_FLAGS = {
  harness: { type: 'string', short: 'H' },
  cwd: { type: 'string', short: 'C' },
  model: { type: 'string', short: 'm' },
  effort: { type: 'string' },
  resume: { type: 'string' },
  'output-schema': { type: 'string' },
  posture: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface SessionOptions {
  harness: string;
  spec: SessionSpec;
  outputSchema?: JsonSchema;
  json: boolean;
}

export function parseSessionArgs(argv: string[]) {
  return parseFlags({ args: argv, options: SESSION_FLAGS, allowPositionals: true, strict: true });
}

/** -H, --effort and --posture, validated: every command that opens sessions takes them the same way. */
export function harnessFlags(values: { harness?: string; effort?: string; posture?: string }): {
  harness: HarnessId;
  effort?: Effort;
  posture?: Posture;
} {
  const { harness, effort, posture } = values;
  if (!harness)
    throw new UsageError('Choose a harness with -H <harness>.', `Known harnesses: ${HARNESS_IDS.join(', ')}.`);
  if (!isHarnessId(harness)) {
    throw new UsageError(`Unknown harness "${harness}".`, `Known harnesses: ${HARNESS_IDS.join(', ')}.`);
  }
  if (effort !== undefined && !(EFFORT_LEVELS as readonly string[]).includes(effort)) {
    throw new UsageError(`Unknown effort "${effort}".`, `Use one of: ${EFFORT_LEVELS.join(', ')}.`);
  }
  if (posture !== undefined && !(POSTURES as readonly string[]).includes(posture)) {
    throw new UsageError(`Unknown posture "${posture}".`, `Use one of: ${POSTURES.join(', ')}.`);
  }
  return {
    harness,
    ...(effort !== undefined ? { effort: effort as Effort } : {}),
    ...(posture !== undefined ? { posture: posture as Posture } : {}),
  };
}

export async function sessionOptions(
  values: ReturnType<typeof parseSessionArgs>['values'],
  io: CliIo,
): Promise<SessionOptions> {
  const { harness, effort, posture } = harnessFlags(values);
  // An empty value (--model "" from an unset shell variable) would silently mean "the default".
  for (const flag of ['cwd', 'model', 'resume', 'output-schema'] as const) {
    if (values[flag] !== undefined && values[flag].trim() === '') {
      throw new UsageError(`--${flag} is empty.`, 'Give it a value, or leave the flag out for the default.');
    }
  }
  const cwd = values.cwd ? (isAbsolute(values.cwd) ? values.cwd : resolve(io.cwd, values.cwd)) : io.cwd;
  const spec: SessionSpec = { cwd, posture: posture ?? 'bypass' };
  if (values.model) spec.model = values.model;
  if (effort) spec.effort = effort;
  if (values.resume) spec.resume = { nativeSessionId: values.resume };
  const options: SessionOptions = { harness, spec, json: Boolean(values.json) };
  if (values['output-schema']) options.outputSchema = await readSchema(resolve(io.cwd, values['output-schema']));
  return options;
}

async function readSchema(path: string): Promise<JsonSchema> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `Cannot read the output schema file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}.`,
    );
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`The output schema file ${path} is not JSON: ${(error as Error).message}.`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new UsageError(`The output schema file ${path} must hold a JSON Schema object.`);
  }
  try {
    assertValidSchema(schema as JsonSchema);
  } catch (error) {
    throw new UsageError(ReinsError.isInstance(error) ? error.message : String(error));
  }
  return schema as JsonSchema;
}

/** Errors that mean the user must change what they typed or installed: exit 2 with a hint. */
export function usageFromReinsError(error: unknown, harness: string): UsageError | undefined {
  if (!ReinsError.isInstance(error)) return undefined;
  if (error.code === 'binary_not_found') {
    const variable = `REINS_${harness.toUpperCase().replace(/-/g, '_')}_BIN`;
    // The discovery's own message may already say all of it: no hint that repeats it.
    const hint = error.message.includes(variable)
      ? undefined
      : `\`reins doctor\` shows where Reins looks for each harness; set ${variable} to the binary's absolute path to choose one.`;
    return new UsageError(error.message, hint, 'binary_not_found');
  }
  if (error.code === 'invalid_input') return new UsageError(error.message);
  return undefined;
}
