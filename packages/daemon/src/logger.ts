// The daemon's log: one JSON object per line on stderr (pino's shape: time, level, msg, fields).
// pino is not installed in this workspace, so this tiny logger stands in for it. Callers pass
// chosen fields only; tokens, environments and request params are never logged.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const RANK: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50, silent: 100 };

export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: LogFields = {}): void => {
      if (RANK[name] < RANK[level]) return;
      write(`${JSON.stringify({ time: Date.now(), level: name, msg, ...fields })}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
