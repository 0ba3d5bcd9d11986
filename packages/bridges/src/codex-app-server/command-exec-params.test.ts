// command/exec's params: what runs, with which defaults, and each refusal naming its field.
import { describe, expect, it } from 'vitest';
import {
  commandEnvOf,
  commandExecSpecOf,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_OUTPUT_CAP_BYTES,
  exitCodeOf,
} from './command-exec-params.js';
import { ParamsError } from './requests.js';

const fieldOf = (params: Record<string, unknown>): string | undefined => {
  try {
    commandExecSpecOf(params, '/srv');
    return undefined;
  } catch (error) {
    if (error instanceof ParamsError) return error.field;
    throw error;
  }
};

describe('command/exec params', () => {
  it('takes the argv in the server cwd with the default cap and timeout, a relative cwd under it', () => {
    expect(commandExecSpecOf({ command: ['ls', '-l'] }, '/srv')).toEqual({
      argv: ['ls', '-l'],
      processId: undefined,
      cwd: '/srv',
      env: {},
      streamStdin: false,
      streamOutput: false,
      outputCap: DEFAULT_OUTPUT_CAP_BYTES,
      timeoutMs: DEFAULT_COMMAND_TIMEOUT_MS,
    });
    const spec = commandExecSpecOf(
      {
        command: ['cat'],
        processId: 'p1',
        cwd: 'sub',
        env: { A: '1', B: null },
        streamStdin: true,
        streamStdoutStderr: true,
        disableOutputCap: true,
        timeoutMs: 500,
        sandboxPolicy: { type: 'dangerFullAccess' },
      },
      '/srv',
    );
    expect(spec).toMatchObject({ cwd: '/srv/sub', env: { A: '1', B: null }, outputCap: undefined, timeoutMs: 500 });
    expect(commandExecSpecOf({ command: ['x'], disableTimeout: true }, '/srv').timeoutMs).toBeUndefined();
  });

  it('refuses what it cannot honour or what Codex refuses, naming the field', () => {
    expect(fieldOf({ command: [] })).toBe('command');
    expect(fieldOf({ command: 'ls' })).toBe('command');
    expect(fieldOf({ command: [''] })).toBe('command[0]');
    expect(fieldOf({ command: ['sh'], tty: true, processId: 'p' })).toBe('tty');
    expect(fieldOf({ command: ['sh'], size: { rows: 1, cols: 1 } })).toBe('size');
    expect(fieldOf({ command: ['sh'], sandboxPolicy: { type: 'readOnly' } })).toBe('sandboxPolicy');
    expect(fieldOf({ command: ['sh'], streamStdoutStderr: true })).toBe('streamStdoutStderr');
    expect(fieldOf({ command: ['sh'], streamStdin: true })).toBe('streamStdin');
    expect(fieldOf({ command: ['sh'], outputBytesCap: 10, disableOutputCap: true })).toBe('outputBytesCap');
    expect(fieldOf({ command: ['sh'], timeoutMs: 10, disableTimeout: true })).toBe('timeoutMs');
    expect(fieldOf({ command: ['sh'], timeoutMs: -1 })).toBe('timeoutMs');
    expect(fieldOf({ command: ['sh'], env: { A: 1 } })).toBe('env.A');
    expect(fieldOf({ command: ['sh'] })).toBeUndefined();
  });

  it('applies env overrides (null unsets) and reports a signal as a shell does', () => {
    expect(commandEnvOf({ A: 'a', B: 'b', C: undefined }, { B: null, D: 'd' })).toEqual({ A: 'a', D: 'd' });
    expect(exitCodeOf(3, null, { SIGKILL: 9 })).toBe(3);
    expect(exitCodeOf(null, 'SIGKILL', { SIGKILL: 9 })).toBe(137);
  });
});
