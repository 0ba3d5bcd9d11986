// Honest settings (docs/architecture/contract.md): every SessionSpec field is honoured by the adapter
// or refused with `unsupported_capability` naming the field, before any process starts; a cwd that is
// missing or not a directory is `invalid_input` naming the path (never `binary_not_found`).
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { type Posture, ReinsError, type SessionSpec, SessionSpecSchema } from '@reins/core';

/** What an adapter honours of the spec. `env`, `outputSchema` and `stallTimeoutMs` every adapter honours. */
export interface SpecSupport {
  model: boolean;
  effort: boolean;
  resume: boolean;
  postures: readonly Posture[];
  ephemeral: boolean;
  allowedTools: boolean;
  systemPrompt: boolean;
  mcpServers: boolean;
  /** spec.resume.fork: the adapter starts a new conversation on a copy (absent: refused). */
  fork?: boolean;
}

const FIELD_TEXT: Record<Exclude<keyof SpecSupport, 'postures' | 'fork'>, string> = {
  model: 'choosing a model (spec.model)',
  effort: 'choosing an effort (spec.effort)',
  resume: 'resuming a conversation (spec.resume)',
  ephemeral: 'ephemeral sessions (spec.ephemeral)',
  allowedTools: 'restricting tools (spec.allowedTools)',
  systemPrompt: 'system prompt additions (spec.systemPrompt)',
  mcpServers: 'MCP servers (spec.mcpServers)',
};

/**
 * Parses and checks a session spec for one adapter: schema, cwd, then every field the adapter does
 * not honour is refused. Returns the parsed spec.
 */
export function acceptSessionSpec(
  raw: SessionSpec,
  support: SpecSupport,
  harness: { id: string; displayName: string },
): SessionSpec {
  const parsed = SessionSpecSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `spec.${issue.path.join('.')}` : 'spec';
    throw new ReinsError('invalid_input', `Invalid session spec: ${where}: ${issue?.message ?? 'not a spec'}.`, {
      harness: harness.id,
      operation: 'createSession',
    });
  }
  const spec = parsed.data;
  assertWorkingDirectory(spec.cwd, harness.id);
  for (const field of Object.keys(FIELD_TEXT) as Array<keyof typeof FIELD_TEXT>) {
    if (spec[field] === undefined || support[field]) continue;
    if (field === 'ephemeral' && spec.ephemeral === false) continue;
    throw new ReinsError(
      'unsupported_capability',
      `Reins cannot honour ${FIELD_TEXT[field]} on ${harness.displayName}; leave it out of the spec.`,
      { harness: harness.id, operation: 'createSession', data: { field } },
    );
  }
  // Resuming the original when a fork was asked for would make two sessions share one conversation.
  if (spec.resume?.fork === true && support.fork !== true) {
    throw new ReinsError(
      'unsupported_capability',
      `Reins cannot fork a conversation on ${harness.displayName} (spec.resume.fork); resume it without fork instead.`,
      { harness: harness.id, operation: 'createSession', data: { field: 'resume.fork' } },
    );
  }
  const posture = spec.posture ?? 'bypass';
  if (!support.postures.includes(posture)) {
    throw new ReinsError(
      'unsupported_capability',
      `${harness.displayName} cannot run with posture "${posture}" in Reins; use ${support.postures.map((p) => `"${p}"`).join(' or ')}.`,
      { harness: harness.id, operation: 'createSession', data: { field: 'posture' } },
    );
  }
  return spec;
}

/** An absolute path to an existing directory, else `invalid_input` naming it. */
export function assertWorkingDirectory(cwd: string, harness?: string): void {
  const fail = (why: string) =>
    new ReinsError('invalid_input', `The working directory ${cwd} ${why}.`, {
      ...(harness ? { harness } : {}),
      operation: 'createSession',
      data: { field: 'cwd', cwd },
    });
  if (!isAbsolute(cwd)) throw fail('is not an absolute path');
  let stats: ReturnType<typeof statSync> | undefined;
  try {
    stats = statSync(cwd);
  } catch {
    throw fail('does not exist');
  }
  if (!stats.isDirectory()) throw fail('is not a directory');
}
