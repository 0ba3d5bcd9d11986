// The OpenAI error body shared by the Responses and Chat Completions dialects. Codex maps `code`
// (model_not_found, context_length_exceeded, ...) to its own error kinds (docs/harnesses/codex.md).

const errorKinds: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'permission_denied' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: 'server_error' },
  503: { type: 'server_error', code: 'server_overloaded' },
};

export function openAiErrorBody(status: number, message: string): unknown {
  const kind = errorKinds[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return { error: { message, type: kind.type, param: null, code: kind.code } };
}
