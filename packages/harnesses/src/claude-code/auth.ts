// Claude Code sign-in as Claude Code does it (docs/architecture/contract.md, "The daemon":
// harness/auth/*): the status is `claude auth status` (local state only, JSON), the ceremony is
// `claude auth login`, whose URL Reins hands to the user; the CLI finishes by itself once the user
// signed in (it exits 0). Reins never reads or copies a credential: it runs the CLI and reads what
// it prints about the login, never the files it writes.
//
// 2.1.332: `claude auth login` prints "Opening browser to sign in…", then "If the browser didn't
// open, visit:" and the authorize URL on a line of its own, then "Paste code here if prompted > "
// (no newline) and waits. `--console` signs in to the Anthropic Console instead of a Claude
// subscription, `--sso` with SSO. `claude auth status` exits 1 when logged out and still prints JSON.
import {
  type AuthProbe,
  type DiscoveredBinary,
  type HarnessAuth,
  isRecord,
  type LoginCeremony,
  ReinsError,
  withDeadline,
} from '@reins/core';
import { HarnessProcess, mergeEnv } from '../runtime/index.js';
import { HARNESS } from './query.js';

export interface ClaudeAuthContext {
  locate(): Promise<DiscoveredBinary>;
  baseEnv: NodeJS.ProcessEnv;
  requestTimeoutMs: number;
}

/** Sign-in methods `claude auth login` offers, as its flags (2.1.332). */
const LOGIN_METHODS = [
  { id: 'claudeai', name: 'Claude subscription', description: 'The default: sign in with a Claude.ai account.' },
  { id: 'console', name: 'Anthropic Console', description: 'API usage billing.' },
  { id: 'sso', name: 'SSO', description: 'Sign in through your organisation.' },
];

const URL_PATTERN = /https?:\/\/\S+/;

/** `claude auth status` prints JSON and reads only local state (no request, 2.1.197, 2.1.332). */
export async function claudeAuthStatus(
  context: ClaudeAuthContext,
  binary: DiscoveredBinary,
): Promise<{ loggedIn?: boolean; authMethod?: string; email?: string }> {
  const child = await HarnessProcess.start({
    command: binary.path,
    args: ['auth', 'status'],
    cwd: process.cwd(),
    env: mergeEnv(context.baseEnv, undefined),
    label: 'claude auth status',
    harness: HARNESS,
  });
  const lines: string[] = [];
  child.onLine((line) => lines.push(line));
  try {
    await withDeadline(child.exited, context.requestTimeoutMs, 'claude auth status', { harness: HARNESS });
    await Promise.race([child.outputEnded, new Promise((resolve) => setTimeout(resolve, 500))]);
  } finally {
    await child.close();
  }
  const text = lines.join('\n');
  const start = text.indexOf('{');
  if (start === -1) throw new ReinsError('protocol_error', `claude auth status printed no JSON: ${text.slice(0, 200)}`);
  const parsed: unknown = JSON.parse(text.slice(start));
  if (!isRecord(parsed))
    throw new ReinsError('protocol_error', 'claude auth status printed JSON that is not an object.');
  return {
    ...(typeof parsed.loggedIn === 'boolean' ? { loggedIn: parsed.loggedIn } : {}),
    ...(typeof parsed.authMethod === 'string' ? { authMethod: parsed.authMethod } : {}),
    ...(typeof parsed.email === 'string' ? { email: parsed.email } : {}),
  };
}

export function createClaudeAuth(context: ClaudeAuthContext): HarnessAuth {
  return {
    command: 'claude auth login',

    async status(): Promise<AuthProbe> {
      const status = await claudeAuthStatus(context, await context.locate());
      if (status.loggedIn) return { status: 'signed_in', ...(status.email ? { account: status.email } : {}) };
      return {
        status: 'signed_out',
        methods: LOGIN_METHODS,
        message: 'Claude Code is not logged in.',
      };
    },

    login: (options) => startLogin(context, options.method),
  };
}

/** Runs `claude auth login` until it printed the URL the user opens; the process waits for the sign-in. */
async function startLogin(context: ClaudeAuthContext, method: string | undefined): Promise<LoginCeremony> {
  if (method !== undefined && !LOGIN_METHODS.some((known) => known.id === method)) {
    throw new ReinsError(
      'invalid_input',
      `Claude Code has no sign-in method "${method}"; use one of ${LOGIN_METHODS.map((known) => known.id).join(', ')}.`,
      { harness: HARNESS, operation: 'login', data: { method } },
    );
  }
  const binary = await context.locate();
  const child = await HarnessProcess.start({
    command: binary.path,
    args: ['auth', 'login', ...(method && method !== 'claudeai' ? [`--${method}`] : [])],
    cwd: process.cwd(),
    env: mergeEnv(context.baseEnv, undefined),
    label: 'claude auth login',
    harness: HARNESS,
  });
  const url = new Promise<string>((resolve) => {
    child.onLine((line) => {
      const found = URL_PATTERN.exec(line);
      if (found) resolve(found[0]);
    });
  });
  const exited = child.exited.then((info) => {
    throw new ReinsError(
      'harness_unhealthy',
      `claude auth login ended before it printed a sign-in URL: ${child.describeExit()}`,
      { harness: HARNESS, operation: 'login', data: { code: info.code, signal: info.signal } },
    );
  });
  let printed: string;
  try {
    printed = await withDeadline(Promise.race([url, exited]), context.requestTimeoutMs, 'claude auth login', {
      harness: HARNESS,
      operation: 'login',
    });
  } catch (error) {
    await child.close();
    throw error;
  }
  exited.catch(() => {});
  let cancelled = false;
  return {
    url: printed,
    instructions: 'Open the URL, sign in, and paste the code the page shows if Claude Code asks for it.',
    completed: child.exited.then((info) =>
      info.code === 0 && !cancelled
        ? { ok: true }
        : { ok: false, message: cancelled ? 'The sign-in was cancelled.' : child.describeExit() },
    ),
    async cancel() {
      cancelled = true;
      // stdin end, SIGTERM, SIGKILL on the whole group (a browser opener it started goes too).
      await child.close({ stdinGraceMs: 200 });
    },
  };
}
