// The daemon's pino logger: one JSON object per line with level name, time and msg; lines under
// the level are dropped; a field that should never hold a secret is redacted even if a caller
// passes one by mistake.
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel } from './logger.js';

function collect(options: { level: LogLevel }) {
  const lines: string[] = [];
  const logger = createLogger({ ...options, write: (line) => lines.push(line) });
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('createLogger', () => {
  it('writes JSON lines with level, time, msg and the fields', () => {
    const { logger, parsed } = collect({ level: 'info' });
    logger.info('session created', { sessionId: 's1', harness: 'codex' });
    expect(parsed()).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'session created',
        sessionId: 's1',
        harness: 'codex',
        time: expect.any(Number),
      }),
    ]);
  });

  it('drops lines under the level', () => {
    const { logger, parsed } = collect({ level: 'warn' });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(parsed().map((line) => line.level)).toEqual(['warn', 'error']);
    const silent = collect({ level: 'silent' });
    silent.logger.error('nothing');
    expect(silent.lines).toEqual([]);
  });

  it('redacts fields that must never carry a value', () => {
    const { logger, lines } = collect({ level: 'debug' });
    logger.info('oops', { token: 'secret-token-1', env: 'A=secret-env-2', params: 'secret-params-3', sessionId: 's1' });
    const text = lines.join('');
    for (const secret of ['secret-token-1', 'secret-env-2', 'secret-params-3']) expect(text).not.toContain(secret);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ token: '[redacted]', sessionId: 's1' });
  });
});
