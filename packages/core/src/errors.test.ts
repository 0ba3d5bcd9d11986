import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ReinsError, unsupportedModelError, unsupportedModelInfo } from './errors.js';

describe('ReinsError', () => {
  it('carries a stable code and structured fields', () => {
    const cause = new Error('boom');
    const error = new ReinsError('process_exited', 'codex exited', {
      harness: 'codex',
      operation: 'turn/start',
      data: { exitCode: 1 },
      cause,
    });
    expect(error.code).toBe('process_exited');
    expect(error.harness).toBe('codex');
    expect(error.operation).toBe('turn/start');
    expect(error.cause).toBe(cause);
    expect(error.toInfo()).toEqual({ code: 'process_exited', message: 'codex exited', data: { exitCode: 1 } });
  });

  it('isInstance survives a second copy of the package (marker, not instanceof)', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('reins.error')]: true, code: 'timeout' });
    expect(ReinsError.isInstance(foreign)).toBe(true);
    expect(ReinsError.isInstance(new Error('plain'))).toBe(false);
    expect(ReinsError.isInstance({ code: 'timeout' })).toBe(false);
    expect(ReinsError.isInstance(null)).toBe(false);
  });

  it('from() keeps a ReinsError and wraps anything else with the fallback code', () => {
    const original = new ReinsError('timeout', 't');
    expect(ReinsError.from(original, 'protocol_error')).toBe(original);
    const wrapped = ReinsError.from(new TypeError('bad'), 'protocol_error', { harness: 'pi' });
    expect(wrapped.code).toBe('protocol_error');
    expect(wrapped.message).toBe('bad');
    expect(wrapped.harness).toBe('pi');
  });

  it('unsupported_model messages contain the binding words', () => {
    const error = unsupportedModelError('gpt-nope', 'model_not_found');
    expect(error.code).toBe('unsupported_model');
    expect(error.message).toContain('unsupported model');
    expect(error.data).toEqual({ model: 'gpt-nope' });
  });

  it('unsupportedModelInfo is the info of unsupportedModelError, built without an Error', () => {
    const data = { harnessError: 'model_not_found', status: 404 };
    expect(unsupportedModelInfo('gpt-nope', 'no such model', data)).toEqual(
      unsupportedModelError('gpt-nope', 'no such model', { data }).toInfo(),
    );
    expect(JSON.stringify(unsupportedModelInfo('gpt-nope'))).toBe(
      JSON.stringify(unsupportedModelError('gpt-nope').toInfo()),
    );
    expect(unsupportedModelInfo('gpt-nope', 'x', data)).not.toBeInstanceOf(Error);
  });

  it('lists every binding code', () => {
    expect([...ERROR_CODES].sort()).toEqual(
      [
        'auth_required',
        'binary_not_found',
        'harness_unhealthy',
        'invalid_input',
        'process_exited',
        'protocol_error',
        'provider_error',
        'resume_failed',
        'store_unavailable',
        'structured_output_invalid',
        'timeout',
        'unsupported_capability',
        'unsupported_model',
      ].sort(),
    );
  });
});
