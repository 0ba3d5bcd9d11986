// The ACP handshake on a new connection: `initialize` (ACP v1, or the v2 draft when asked and the agent
// answers with it: acp/v2.ts), then `authenticate` with the configured auth method when the agent
// offers it. The connection sends the requests; this decides what to send and what the answers mean.
import { type HarnessId, ReinsError } from '@reins/core';
import { type InitializeResponse, PROTOCOL_VERSION } from './wire.js';

export interface HandshakeOptions {
  /** Auth method id to use when the agent lists it (harness-specific option). */
  authMethod?: string;
  /**
   * Tell the agent Reins can show terminal sign-in methods (`clientCapabilities.auth.terminal`):
   * only the sign-in probe asks, since it is what hands the user the command to run.
   */
  terminalAuth?: boolean;
  clientName?: string;
  clientVersion?: string;
  /** Ask for ACP v2 (the draft) at initialize; the agent's answer decides (acp/v2.ts). Default 1. */
  protocolVersion?: 1 | 2;
}

type Request = <T>(method: string, params: unknown) => Promise<T>;

/** Sends initialize; `v2` when the agent took the v2 draft (its answer is then still in v2's shape). */
export async function initializeAgent(
  request: Request,
  options: HandshakeOptions,
): Promise<{ answer: Record<string, unknown>; v2: boolean }> {
  if (options.protocolVersion === 2) {
    const info = { name: options.clientName ?? 'reins', version: options.clientVersion ?? '0.1.0' };
    const answer = await request<Record<string, unknown>>('initialize', {
      protocolVersion: 2,
      info,
      capabilities: options.terminalAuth ? { auth: { terminal: true } } : {},
    });
    // The agent may choose v1: it then answered in v1's shape (ACP negotiation), as any v1 agent.
    return { answer, v2: answer.protocolVersion === 2 };
  }
  const answer = await request<Record<string, unknown>>('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {
      // fs is served inside each session's cwd only; Reins offers no terminal (the agent runs its own).
      fs: { readTextFile: true, writeTextFile: true },
      terminal: false,
      ...(options.terminalAuth ? { auth: { terminal: true } } : {}),
    },
    clientInfo: { name: options.clientName ?? 'reins', version: options.clientVersion ?? '0.1.0' },
  });
  return { answer, v2: false };
}

/** Authenticates with the configured method (a v1 agent); auth_required when the agent does not offer it. */
export async function authenticate(
  request: Request,
  response: InitializeResponse,
  options: HandshakeOptions,
  launch: { harness: HarnessId; label: string },
): Promise<void> {
  const methods = response.authMethods ?? [];
  const wanted = options.authMethod;
  if (!wanted) return;
  if (!methods.some((method) => method.id === wanted)) {
    throw new ReinsError(
      'auth_required',
      `${launch.label} does not offer the auth method "${wanted}"; it offers: ${methods.map((m) => m.id).join(', ') || 'none'}.`,
      { harness: launch.harness, operation: 'authenticate', data: { authMethods: methods } },
    );
  }
  await request('authenticate', { methodId: wanted });
}
