// The daemon's log: pino (10.4.0), one JSON object per line on stderr (written synchronously, so
// the last lines before a crash are not lost), level from `--log-level`. Callers pass chosen
// fields only: ids, counts, reasons. Tokens, environments, prompts and request params are never
// logged; the redaction paths below are a second line behind that rule, not the rule itself.
import { pino } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** Field names that must never carry a value into a log line. */
const REDACTED = ['token', 'env', 'baseEnv', 'params', 'input', 'text', 'prompt', 'spec', 'harnessOptions'];

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go (default: stderr, synchronously). Tests pass a collector. */
  write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write;
  const destination = write ? { write: (line: string) => write(line) } : pino.destination({ dest: 2, sync: true });
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.epochTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED, ...REDACTED.map((name) => `*.${name}`)], censor: '[redacted]' },
    },
    destination,
  );
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: LogFields = {}): void => {
      logger[name](fields, msg);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A logger that drops everything (tests, embedders that log elsewhere). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
