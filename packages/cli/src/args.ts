// Flag parsing for every command: node:util's parseArgs, with its errors turned into usage errors
// (exit 2, a short sentence and a hint) rather than an "unexpected error" with a stack.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './io.js';

export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw usageFromParseError(error) ?? error;
  }
}

/** A parseArgs error as a UsageError; undefined for anything else. */
export function usageFromParseError(error: unknown): UsageError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) return undefined;
  const message = (error as Error).message;
  // Node appends a long, unterminated sentence about positionals to an unknown option: keep it short.
  const cut = message.indexOf('. To specify a positional argument');
  if (cut >= 0) {
    return new UsageError(`${message.slice(0, cut)}.`, "An argument that starts with '-' goes after '--'.");
  }
  return new UsageError(/[.!?]$/.test(message) ? message : `${message}.`);
}
