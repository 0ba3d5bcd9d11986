// ACP sign-in as the protocol has it (docs/architecture/contract.md, "The daemon": harness/auth/*).
// The status is what the agent itself says: a throwaway process is initialized and asked for a
// session (session/new in an empty temp dir); an `auth_required` answer (-32000) is signed out, with
// the `authMethods` initialize listed. The ceremony is ACP `authenticate` with the method the user
// picked from those, run on a process of its own that lives until the agent answers, the ceremony
// is cancelled, or the daemon's watch sees the sign-in land. Methods that run in a terminal are
// never sent to `authenticate` (the protocol forbids it): the ceremony hands the user the command.
// Reins never reads or copies a credential: the agent keeps whatever the sign-in produces.
//
// Terminal methods come in three forms: the protocol's `type: "terminal"` with `args`/`env` to add
// to the agent's own command (claude-agent-acp 0.23.1 lists one, `--cli`, only when the client says
// `clientCapabilities.auth.terminal`), Qwen Code 0.24.4's `_meta: {type: "terminal", args}`, and
// `_meta["terminal-auth"]: {command, args}` naming the whole command (Copilot CLI 1.0.102).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuthMethod,
  type AuthProbe,
  type HarnessAuth,
  type HarnessId,
  isRecord,
  type LoginCeremony,
  ReinsError,
} from '@reins/core';
import type { AcpConnection } from './connection.js';

export interface AcpAuthContext {
  harness: HarnessId;
  displayName: string;
  /** Spawns and initializes the agent in `cwd`, telling it Reins shows terminal sign-ins. */
  open(cwd: string): Promise<AcpConnection>;
  /** The agent's own command (binary and, for a Node script, the script), for terminal methods. */
  invocation(): Promise<{ command: string; args: string[] }>;
  /** How long login waits for an `authenticate` the agent answers at once (ms, default 1 000). */
  loginSettleMs?: number;
}

/** A sign-in method as offered, with the command to run when it is a terminal one. */
export interface OfferedMethod extends AuthMethod {
  /** The method runs in a terminal: the command line a user runs there. */
  terminal?: string;
  /** A `type` Reins does not know how to run (neither agent nor terminal). */
  unknownType?: string;
}

/** Reads the agent's `authMethods` (initialize) into methods a user can pick. */
export function offeredMethods(raw: unknown, invocation: { command: string; args: string[] }): OfferedMethod[] {
  if (!Array.isArray(raw)) return [];
  const out: OfferedMethod[] = [];
  for (const method of raw) {
    if (!isRecord(method) || typeof method.id !== 'string') continue;
    const offered: OfferedMethod = {
      id: method.id,
      ...(typeof method.name === 'string' ? { name: method.name } : {}),
      ...(typeof method.description === 'string' && method.description ? { description: method.description } : {}),
    };
    const meta = isRecord(method._meta) ? method._meta : {};
    const legacy = isRecord(meta['terminal-auth']) ? meta['terminal-auth'] : undefined;
    if (legacy && typeof legacy.command === 'string') {
      offered.terminal = commandLine(legacy.command, strings(legacy.args), stringMap(legacy.env));
    } else if (method.type === 'terminal') {
      offered.terminal = commandLine(
        invocation.command,
        [...invocation.args, ...strings(method.args)],
        stringMap(method.env),
      );
    } else if (method.type === undefined && meta.type === 'terminal') {
      offered.terminal = commandLine(
        invocation.command,
        [...invocation.args, ...strings(meta.args)],
        stringMap(meta.env),
      );
    } else if (method.type !== undefined && method.type !== 'agent') {
      offered.unknownType = String(method.type);
    }
    out.push(offered);
  }
  return out;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

function stringMap(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** A command line a user can paste into a POSIX shell. */
function commandLine(command: string, args: string[], env: Record<string, string>): string {
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${quote(value)}`);
  return [...assignments, ...[command, ...args].map(quote)].join(' ');
}

/** The public face of a method (what harness/auth/status lists). */
function publicMethod(method: OfferedMethod): AuthMethod {
  return {
    id: method.id,
    ...(method.name !== undefined ? { name: method.name } : {}),
    ...(method.description !== undefined ? { description: method.description } : {}),
  };
}

export function createAcpAuth(context: AcpAuthContext): HarnessAuth & { readonly command: string | undefined } {
  let terminalCommand: string | undefined;

  /** A throwaway agent in an empty temp dir; `use` runs on it, then the process and the dir go. */
  async function withAgent<T>(
    use: (connection: AcpConnection, dir: string, methods: OfferedMethod[]) => Promise<T>,
  ): Promise<T> {
    const dir = await mkdtemp(join(tmpdir(), 'reins-acp-auth-'));
    try {
      const connection = await context.open(dir);
      try {
        const methods = offeredMethods(connection.initializeResponse?.authMethods, await context.invocation());
        terminalCommand = methods.find((method) => method.terminal)?.terminal;
        return await use(connection, dir, methods);
      } finally {
        await connection.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return {
    /** The first terminal sign-in the agent listed in the last probe (what a user runs themselves). */
    get command() {
      return terminalCommand;
    },

    async status(): Promise<AuthProbe> {
      return withAgent(async (connection, dir, methods) => {
        try {
          const setup = await connection.request<unknown>('session/new', { cwd: dir, mcpServers: [] });
          const sessionId = isRecord(setup) && typeof setup.sessionId === 'string' ? setup.sessionId : undefined;
          if (sessionId && connection.initializeResponse?.agentCapabilities?.sessionCapabilities?.close) {
            await connection.request('session/close', { sessionId }).catch(() => {});
          }
          return { status: 'signed_in' };
        } catch (error) {
          const reins = ReinsError.from(error, 'protocol_error', { harness: context.harness });
          if (reins.code !== 'auth_required') throw reins;
          return {
            status: 'signed_out',
            methods: methods.map(publicMethod),
            message: `${context.displayName} needs a sign-in (it answered session/new with "authentication required").`,
          };
        }
      });
    },

    login: (options) => startLogin(context, options.method, (command) => (terminalCommand = command)),
  };
}

/** Picks the method (the one offered when there is one), refusing what it cannot run. */
function chooseMethod(context: AcpAuthContext, methods: OfferedMethod[], wanted: string | undefined): OfferedMethod {
  const ids = methods.map((method) => method.id).join(', ');
  if (methods.length === 0) {
    throw new ReinsError(
      'unsupported_capability',
      `${context.displayName} lists no sign-in method (initialize authMethods is empty); sign in with the agent itself.`,
      { harness: context.harness, operation: 'login' },
    );
  }
  const chosen = wanted === undefined && methods.length === 1 ? methods[0] : methods.find((m) => m.id === wanted);
  if (!chosen) {
    throw new ReinsError(
      'invalid_input',
      wanted === undefined
        ? `${context.displayName} offers several sign-in methods; pick one of ${ids}.`
        : `${context.displayName} has no sign-in method "${wanted}"; use one of ${ids}.`,
      { harness: context.harness, operation: 'login', data: { method: wanted, methods: methods.map(publicMethod) } },
    );
  }
  if (chosen.unknownType !== undefined) {
    throw new ReinsError(
      'unsupported_capability',
      `Reins cannot run ${context.displayName}'s sign-in method "${chosen.id}" (type "${chosen.unknownType}"); sign in with the agent itself.`,
      { harness: context.harness, operation: 'login', data: { method: chosen.id, type: chosen.unknownType } },
    );
  }
  return chosen;
}

async function startLogin(
  context: AcpAuthContext,
  wanted: string | undefined,
  sawTerminal: (command: string | undefined) => void,
): Promise<LoginCeremony> {
  const dir = await mkdtemp(join(tmpdir(), 'reins-acp-login-'));
  let connection: AcpConnection | undefined;
  const cleanup = async () => {
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  };
  let method: OfferedMethod;
  try {
    connection = await context.open(dir);
    const methods = offeredMethods(connection.initializeResponse?.authMethods, await context.invocation());
    sawTerminal(methods.find((offered) => offered.terminal)?.terminal);
    method = chooseMethod(context, methods, wanted);
  } catch (error) {
    await cleanup();
    throw error;
  }
  let settle: (outcome: { ok: boolean; message?: string }) => void = () => {};
  const completed = new Promise<{ ok: boolean; message?: string }>((resolve) => {
    settle = resolve;
  });
  let cancelled: Promise<void> | undefined;
  const cancel = () => {
    cancelled ??= (async () => {
      settle({ ok: false, message: 'The sign-in was cancelled.' });
      await cleanup();
    })();
    return cancelled;
  };

  if (method.terminal) {
    // Not for `authenticate`: the user runs it; the daemon's watch sees the sign-in land.
    await cleanup();
    return {
      instructions: `Run \`${method.terminal}\` in a terminal and sign in there; Reins notices when it lands.`,
      completed,
      cancel,
    };
  }

  // No deadline: the agent may wait for the user as long as the sign-in takes (cancel ends it).
  const open = connection as AcpConnection;
  const answer = open.request<unknown>('authenticate', { methodId: method.id }, { timeoutMs: 0 }).then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error: ReinsError.from(error, 'protocol_error') }),
  );
  // Settled once the process is gone, so a ceremony that ended leaves nothing running.
  void answer.then(async (outcome) => {
    await cleanup().catch(() => {});
    settle(outcome.ok ? { ok: true } : { ok: false, message: outcome.error.message });
  });
  // An agent that signs in at once (or refuses at once) answers within moments: say so directly.
  const early = await Promise.race([
    answer,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), context.loginSettleMs ?? 1_000).unref()),
  ]);
  if (early && !early.ok) {
    await cleanup().catch(() => {});
    throw new ReinsError(
      early.error.code === 'auth_required' ? 'auth_required' : 'harness_unhealthy',
      `${context.displayName} refused the sign-in with "${method.id}": ${early.error.message}`,
      { harness: context.harness, operation: 'authenticate', cause: early.error, data: { method: method.id } },
    );
  }
  const name = method.name ?? method.id;
  return {
    instructions: early
      ? `${context.displayName} accepted the sign-in with ${name}.`
      : `${context.displayName} is signing in with ${name}: follow what it opened (a browser window or a prompt of its own); Reins notices when it lands.`,
    completed,
    cancel,
  };
}
