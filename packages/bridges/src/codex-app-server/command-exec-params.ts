// Pure: command/exec's params (Codex 0.171.0's CommandExecParams) -> what the bridge runs, and the
// refusals with the field they name. The bridge runs the argv as a process of its own, as Codex runs it
// on its own machine; what it cannot honour (a PTY, a sandbox narrower than none) is refused, never dropped.
import { isAbsolute, resolve } from 'node:path';
import { ParamsError } from './requests.js';

/** Output kept per stream when the params set no cap (the bridge's choice: docs/architecture/bridges.md). */
export const DEFAULT_OUTPUT_CAP_BYTES = 1024 * 1024;
/** How long a command may run when the params set no timeout (the bridge's choice, as thread/shellCommand). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 10 * 60 * 1000;

export interface CommandExecSpec {
  argv: [string, ...string[]];
  /** The client's connection-scoped id; absent for a buffered command it never names again. */
  processId: string | undefined;
  cwd: string;
  /** Overrides on the bridge's environment: a string sets, null unsets. */
  env: Record<string, string | null>;
  streamStdin: boolean;
  streamOutput: boolean;
  /** Bytes kept per stream; undefined: no cap. */
  outputCap: number | undefined;
  /** undefined: no timeout. */
  timeoutMs: number | undefined;
}

type Params = Record<string, unknown>;

const given = (params: Params, field: string) => params[field] !== undefined && params[field] !== null;

function positive(params: Params, field: string): number | undefined {
  if (!given(params, field)) return undefined;
  const value = params[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
    throw new ParamsError(field, 'must be a positive whole number.');
  return value;
}

function envOf(value: unknown): Record<string, string | null> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ParamsError('env', 'must be an object.');
  const env: Record<string, string | null> = {};
  for (const [name, entry] of Object.entries(value)) {
    if (entry !== null && typeof entry !== 'string') throw new ParamsError(`env.${name}`, 'must be a string or null.');
    env[name] = entry;
  }
  return env;
}

/** command/exec's params checked; `serverCwd` is where a command without `cwd` runs. */
export function commandExecSpecOf(params: Params, serverCwd: string): CommandExecSpec {
  const command = params.command;
  if (!Array.isArray(command) || command.length === 0 || !command.every((part) => typeof part === 'string'))
    throw new ParamsError('command', 'must be a non-empty array of strings (the argv).');
  const [program, ...args] = command as string[];
  if (!program) throw new ParamsError('command[0]', 'must name the program to run.');
  if (params.tty === true || given(params, 'size'))
    throw new ParamsError(
      params.tty === true ? 'tty' : 'size',
      'PTY mode is not supported by the Reins bridge; run the command without `tty` (its output is still streamed with `streamStdoutStderr`).',
    );
  const sandbox = params.sandboxPolicy as { type?: unknown } | null | undefined;
  if (given(params, 'sandboxPolicy') && sandbox?.type !== 'dangerFullAccess')
    throw new ParamsError(
      'sandboxPolicy',
      'the Reins bridge cannot sandbox a command; leave sandboxPolicy out or send {"type":"dangerFullAccess"}.',
    );
  const processId = given(params, 'processId') ? params.processId : undefined;
  if (processId !== undefined && (typeof processId !== 'string' || processId === ''))
    throw new ParamsError('processId', 'must be a non-empty string.');
  const streamStdin = params.streamStdin === true;
  const streamOutput = params.streamStdoutStderr === true;
  if ((streamStdin || streamOutput) && processId === undefined)
    throw new ParamsError(
      streamStdin ? 'streamStdin' : 'streamStdoutStderr',
      'requires a `processId` (the id later command/exec/* requests name).',
    );
  const cap = positive(params, 'outputBytesCap');
  if (cap !== undefined && params.disableOutputCap === true)
    throw new ParamsError('outputBytesCap', 'cannot be combined with disableOutputCap.');
  const timeout = positive(params, 'timeoutMs');
  if (timeout !== undefined && params.disableTimeout === true)
    throw new ParamsError('timeoutMs', 'cannot be combined with disableTimeout.');
  const cwd = given(params, 'cwd') ? params.cwd : serverCwd;
  if (typeof cwd !== 'string' || cwd === '') throw new ParamsError('cwd', 'must be a non-empty string.');
  return {
    argv: [program, ...args],
    processId,
    cwd: isAbsolute(cwd) ? cwd : resolve(serverCwd, cwd),
    env: envOf(params.env),
    streamStdin,
    streamOutput,
    outputCap: params.disableOutputCap === true ? undefined : (cap ?? DEFAULT_OUTPUT_CAP_BYTES),
    timeoutMs: params.disableTimeout === true ? undefined : (timeout ?? DEFAULT_COMMAND_TIMEOUT_MS),
  };
}

/** The environment a command runs with: the bridge's own, with the overrides applied. */
export function commandEnvOf(
  base: NodeJS.ProcessEnv,
  overrides: Record<string, string | null>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  for (const [name, value] of Object.entries(overrides)) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** A process's exit as a shell reports it: its code, else 128 + the signal's number. */
export function exitCodeOf(
  code: number | null,
  signal: NodeJS.Signals | null,
  signals: Record<string, number>,
): number {
  if (code !== null) return code;
  return 128 + (signal ? (signals[signal] ?? 0) : 0);
}
