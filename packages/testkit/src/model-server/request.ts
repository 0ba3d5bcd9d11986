// Reading one incoming HTTP request: routing by path to a dialect, the body (decompressed, JSON when it
// parses), and the redacted headers and query that get recorded.
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import type { DialectName } from './dialects/dialect.js';

export type Route =
  | { kind: 'dialect'; dialect: DialectName; streaming: 'body' | 'always' | 'never'; model?: string }
  | { kind: 'count-tokens'; dialect: 'anthropic' | 'gemini-api'; model?: string }
  | { kind: 'models' }
  | { kind: 'probe' }
  | { kind: 'unknown' };

// Clients differ on whether the base URL includes /v1, so the version prefix is optional.
const geminiPath = /^\/v[0-9a-z]+\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

export function route(method: string, path: string): Route {
  if (method === 'HEAD') return { kind: 'probe' };
  if (method === 'GET' && /^(\/v1)?\/models$/.test(path)) return { kind: 'models' };
  if (method !== 'POST') return { kind: 'unknown' };
  if (/^(\/v1)?\/messages\/count_tokens$/.test(path)) return { kind: 'count-tokens', dialect: 'anthropic' };
  if (/^(\/v1)?\/messages$/.test(path)) return { kind: 'dialect', dialect: 'anthropic', streaming: 'body' };
  if (/^(\/v1)?\/responses$/.test(path)) return { kind: 'dialect', dialect: 'responses', streaming: 'body' };
  if (/^(\/v1)?\/chat\/completions$/.test(path)) return { kind: 'dialect', dialect: 'chat', streaming: 'body' };
  const gemini = geminiPath.exec(path);
  if (gemini) {
    const model = decodeURIComponent(gemini[1] ?? '');
    if (gemini[2] === 'countTokens') return { kind: 'count-tokens', dialect: 'gemini-api', model };
    const streaming = gemini[2] === 'streamGenerateContent' ? 'always' : 'never';
    return { kind: 'dialect', dialect: 'gemini-api', streaming, model };
  }
  return { kind: 'unknown' };
}

const secretHeaders = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'cookie',
]);
export const redacted = '[redacted]';

export function redactHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = secretHeaders.has(name) ? redacted : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The Gemini API also accepts the key as `?key=`. */
export function redactQuery(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of params) out[name] = name === 'key' ? redacted : value;
  return out;
}

const decoders: Record<string, (buffer: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

export interface ReadBody {
  /** Parsed JSON, or the text when it is not JSON, or undefined when empty. */
  body: unknown;
  bytes: number;
}

export async function readBody(req: IncomingMessage): Promise<ReadBody> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  let buffer: Buffer = Buffer.concat(chunks);
  const decode = decoders[String(req.headers['content-encoding'] ?? '').toLowerCase()];
  if (decode) buffer = await decode(buffer);
  if (buffer.length === 0) return { body: undefined, bytes: 0 };
  const text = buffer.toString('utf8');
  try {
    return { body: JSON.parse(text) as unknown, bytes: buffer.length };
  } catch {
    return { body: text, bytes: buffer.length };
  }
}
