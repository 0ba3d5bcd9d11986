import { describe, expect, it } from 'vitest';
import { providerError, providerFailureOf, providerKindOf, statusIn } from './provider-failure.js';

describe('provider failures', () => {
  it('reads the kind from the status first and the words second', () => {
    expect(providerKindOf(429, '')).toBe('rate_limited');
    expect(providerKindOf(undefined, 'Rate limit reached for requests')).toBe('rate_limited');
    expect(providerKindOf(529, '')).toBe('overloaded');
    expect(providerKindOf(undefined, 'Overloaded')).toBe('overloaded');
    expect(providerKindOf(500, 'boom')).toBe('server_error');
    expect(providerKindOf(400, 'prompt is too long: 300000 tokens')).toBe('context_window_exceeded');
    expect(providerKindOf(400, 'invalid_request_error')).toBe('bad_request');
    expect(providerKindOf(undefined, 'fetch failed: ECONNREFUSED 127.0.0.1:1')).toBe('connection_failed');
    expect(providerKindOf(undefined, 'something odd')).toBe('unknown');
    expect(statusIn('API Error: 503 {"error":"x"}')).toBe(503);
    expect(statusIn('no status here, 1200 tokens')).toBeUndefined();
  });

  it("takes a harness's own words as data beside the shared ones, in the shared order", () => {
    const words = { server_error: /service unavailable/i, connection_failed: /connection lost/i };
    expect(providerKindOf(undefined, 'Service Unavailable')).toBe('unknown');
    expect(providerKindOf(undefined, 'Service Unavailable', words)).toBe('server_error');
    expect(providerKindOf(undefined, 'connection lost', words)).toBe('connection_failed');
    // A status still comes first: a 429 with the words of another kind is rate limited.
    expect(providerKindOf(429, 'service unavailable', words)).toBe('rate_limited');
    expect(providerKindOf(undefined, 'Rate limit reached', words)).toBe('rate_limited');
  });

  it('maps 404 / model-not-found to unsupported_model, 401/403 to auth_required, the rest to provider_error', () => {
    const missing = providerError(providerFailureOf(404, 'not found'), {}, 'gpt-9');
    expect(missing.code).toBe('unsupported_model');
    expect(missing.message).toMatch(/unsupported model/);
    expect(missing.message).toContain('gpt-9');
    expect(providerError(providerFailureOf(undefined, 'The model `x` does not exist')).code).toBe('unsupported_model');
    expect(providerError(providerFailureOf(401, 'invalid x-api-key')).code).toBe('auth_required');
    expect(providerError(providerFailureOf(429, 'slow down'))).toMatchObject({
      code: 'provider_error',
      retryable: true,
      data: { kind: 'rate_limited', status: 429 },
    });
    expect(providerError(providerFailureOf(400, 'bad'))).toMatchObject({ code: 'provider_error', retryable: false });
  });
});
