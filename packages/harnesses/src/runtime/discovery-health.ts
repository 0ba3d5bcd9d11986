// Health from discovery plus the adapter's own auth probe: ready | not_installed | unhealthy | auth_required.
//
// How an adapter implements `Harness.health()`:
//
//   async health() {
//     const discovery = await discoverBinary(MY_BINARY, { env, explicitPath: options.binaryPath });
//     return harnessHealth(discovery, {
//       auth: async (binary) => {
//         // e.g. Claude: run `claude auth status` with runProbe (deadline) and read its JSON;
//         // Codex: ask `account/read` over app-server; ACP: session/new answered "Authentication required".
//         return loggedIn ? authReady({ authMethods: [method] }) : authRequired('Not logged in.', 'claude /login');
//       },
//     });
//   }
//
// `harnessHealth` settles the discovery part itself (not installed, or the version probe failed -> unhealthy
// with the probe's error: `failedProbeHealth`, which an adapter that writes its own health() calls right
// after its binary is found) and only then runs the auth probe, under a deadline: an auth probe that hangs or
// throws makes the harness unhealthy with that reason, never a hung `reins doctor`. A probe that throws a
// ReinsError with code auth_required becomes auth_required (its message; `fix` from `data.fix` when given).
import type { DiscoveredBinary, Discovery, Health } from '@reins/core';
import { assertNever, ReinsError } from '@reins/core';
import { versionProbeFailure } from './discovery.js';

/** What an adapter's auth probe concluded; `harnessHealth` adds the binary. */
export type AuthCheck =
  | { status: 'ready'; authMethods?: string[]; message?: string }
  | { status: 'auth_required'; message: string; fix: string; authMethods?: string[] }
  | { status: 'unhealthy'; message: string; fix?: string };

export type AuthProbe = (binary: DiscoveredBinary) => Promise<AuthCheck>;

export function authReady(details: { authMethods?: string[]; message?: string } = {}): AuthCheck {
  return { status: 'ready', ...details };
}

/** `fix` is what the user should run or set: 'claude /login', 'codex login', 'set GEMINI_API_KEY'. */
export function authRequired(message: string, fix: string, authMethods?: string[]): AuthCheck {
  return { status: 'auth_required', message, fix, ...(authMethods ? { authMethods } : {}) };
}

/**
 * Unhealthy, with the probe's message, when this binary did not answer its version probe (a missing
 * platform binary, a broken install: Amp's npm stub prints "Amp native binary not installed" and exits 1);
 * undefined when it answered. Every adapter's health() asks this before its own checks.
 */
export function failedProbeHealth(binary: DiscoveredBinary, probeError?: string): Health | undefined {
  const failure = versionProbeFailure(binary) ?? (probeError ? { message: probeError } : undefined);
  if (!failure) return undefined;
  const fix = failure.command
    ? `Run \`${failure.command}\` to see why it fails, or reinstall it.`
    : `Check that ${binary.path} runs, or reinstall it.`;
  return { status: 'unhealthy', binary, message: failure.message, fix };
}

/** The discovery half of health: not_installed, unhealthy (probe failed), or ready as far as discovery knows. */
export function healthFromDiscovery(discovery: Discovery & { probeError?: string }): Health {
  if (!discovery.found) return { status: 'not_installed', message: discovery.hint, fix: discovery.hint };
  return failedProbeHealth(discovery.binary, discovery.probeError) ?? { status: 'ready', binary: discovery.binary };
}

export interface HarnessHealthOptions {
  auth?: AuthProbe;
  /** Deadline for the auth probe (default 15 s). */
  authTimeoutMs?: number;
}

/** Full health: discovery first, then (when the binary answers) the adapter's auth probe under a deadline. */
export async function harnessHealth(
  discovery: Discovery & { probeError?: string },
  options: HarnessHealthOptions = {},
): Promise<Health> {
  const base = healthFromDiscovery(discovery);
  if (base.status !== 'ready' || !options.auth || !discovery.found) return base;
  const binary = discovery.binary;
  const timeoutMs = options.authTimeoutMs ?? 15_000;
  let check: AuthCheck;
  try {
    check = await withDeadline(options.auth(binary), timeoutMs);
  } catch (error) {
    if (ReinsError.isInstance(error) && error.code === 'auth_required') {
      const fix = error.data?.fix;
      return {
        status: 'auth_required',
        binary,
        message: error.message,
        ...(typeof fix === 'string' ? { fix } : {}),
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return { status: 'unhealthy', binary, message: `The auth check failed: ${message}` };
  }
  switch (check.status) {
    case 'ready':
      return { ...check, binary };
    case 'auth_required':
      return { ...check, binary };
    case 'unhealthy':
      return { ...check, binary };
    default:
      return assertNever(check, 'auth check');
  }
}

class DeadlineError extends Error {}

async function withDeadline<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`it did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
