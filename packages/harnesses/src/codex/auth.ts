// Codex sign-in as Codex does it (docs/architecture/contract.md, "The daemon": harness/auth/*): the
// status is `account/read`, the ceremony `account/login/start` on an app-server of its own, which
// answers the URL the user opens and later pushes `account/login/completed`; cancel is
// `account/login/cancel` and the end of that app-server. Reins never reads or copies a credential:
// the API-key and token login kinds (which would pass one through Reins) are not offered.
//
// 0.171.0: `{type: "chatgpt"}` answers `{type, loginId, authUrl}` at once (Codex listens on
// localhost for the OAuth redirect); `{type: "chatgptDeviceCode"}` asks OpenAI for a code first, so
// it needs the network before it answers. With a custom provider `account/read` says
// `requiresOpenaiAuth: false`: there is nothing to sign in to.
import { type AuthProbe, type HarnessAuth, isRecord, type LoginCeremony, ReinsError } from '@reins/core';
import type { JsonRpcPeer } from '../runtime/json-rpc.js';
import { type CodexRuntime, HARNESS } from './connection.js';
import type { GetAccountResponse, LoginAccountParams, LoginAccountResponse } from './wire.js';

const LOGIN_METHODS = [
  { id: 'chatgpt', name: 'ChatGPT account', description: 'The default: sign in in a browser.' },
  { id: 'chatgptDeviceCode', name: 'ChatGPT device code', description: 'Enter a code on another device.' },
];

/** The fix `doctor` and a refused session start both give. */
export const CODEX_SIGN_IN_FIX = 'Run `codex login`, or configure a provider with an API key in ~/.codex/config.toml.';

/**
 * Throws `auth_required` when Codex needs an OpenAI login it does not have (the check `doctor` makes):
 * without one Codex retries its provider for minutes (docs/architecture/contract.md, "Turn rules"). A Codex
 * that cannot answer `account/read` passes: the retry bound then ends the turn.
 */
export async function assertCodexSignedIn(peer: JsonRpcPeer): Promise<void> {
  let read: GetAccountResponse;
  try {
    read = await peer.request<GetAccountResponse>('account/read', { refreshToken: false });
  } catch {
    return;
  }
  if (!read.requiresOpenaiAuth || read.account) return;
  throw new ReinsError(
    'auth_required',
    `Codex is not signed in to OpenAI, which its configured provider needs. ${CODEX_SIGN_IN_FIX}`,
    {
      harness: HARNESS,
      operation: 'send',
      data: { fix: CODEX_SIGN_IN_FIX },
    },
  );
}

export function createCodexAuth(runtime: CodexRuntime): HarnessAuth {
  return {
    command: 'codex login',

    async status(): Promise<AuthProbe> {
      const read = await runtime.probe(process.cwd(), (peer) =>
        peer.request<GetAccountResponse>('account/read', { refreshToken: false }),
      );
      const account = read.account;
      if (account) {
        const email = account.type === 'chatgpt' ? account.email : null;
        return { status: 'signed_in', ...(email ? { account: email } : {}) };
      }
      if (!read.requiresOpenaiAuth) {
        return { status: 'signed_in', message: 'The provider Codex is configured for needs no OpenAI sign-in.' };
      }
      return { status: 'signed_out', methods: LOGIN_METHODS, message: 'Codex is not signed in to OpenAI.' };
    },

    login: (options) => startLogin(runtime, options.method ?? 'chatgpt'),
  };
}

async function startLogin(runtime: CodexRuntime, method: string): Promise<LoginCeremony> {
  if (!LOGIN_METHODS.some((known) => known.id === method)) {
    throw new ReinsError(
      'invalid_input',
      `Reins signs Codex in with ${LOGIN_METHODS.map((known) => known.id).join(' or ')}, not "${method}" (an API key or token is configured in Codex, never passed through Reins).`,
      { harness: HARNESS, operation: 'login', data: { method } },
    );
  }
  let loginId: string | undefined;
  let settle: (outcome: { ok: boolean; message?: string }) => void = () => {};
  const completed = new Promise<{ ok: boolean; message?: string }>((resolve) => {
    settle = resolve;
  });
  const connection = await runtime.connect(process.cwd(), undefined, {
    onNotification: (frame) => {
      if (frame.method !== 'account/login/completed' || !isRecord(frame.params)) return;
      const { loginId: id, success, error } = frame.params;
      if (id !== null && id !== undefined && id !== loginId) return; // another client's login
      settle(
        success === true
          ? { ok: true }
          : { ok: false, ...(typeof error === 'string' && error ? { message: error } : {}) },
      );
    },
  });
  void connection.exited.then(() => settle({ ok: false, message: 'The Codex app-server of the sign-in ended.' }));
  let started: LoginAccountResponse;
  try {
    started = await connection.peer.request<LoginAccountResponse>('account/login/start', {
      type: method,
    } as LoginAccountParams);
  } catch (error) {
    await connection.close({ stdinGraceMs: 200, termGraceMs: 1000 });
    throw ReinsError.from(error, 'harness_unhealthy', { harness: HARNESS, operation: 'account/login/start' });
  }
  const ceremony = ceremonyOf(started);
  if (!ceremony) {
    await connection.close({ stdinGraceMs: 200, termGraceMs: 1000 });
    throw new ReinsError('protocol_error', 'Codex started a sign-in without a URL to open.', {
      harness: HARNESS,
      operation: 'account/login/start',
      data: { type: isRecord(started) ? started.type : undefined },
    });
  }
  loginId = ceremony.loginId;
  // Closing the connection settles `completed` (not ok) if Codex never said the login ended.
  void completed.then(() => connection.close({ stdinGraceMs: 200, termGraceMs: 1000 }));
  let cancelled: Promise<void> | undefined;
  return {
    url: ceremony.url,
    ...(ceremony.userCode ? { userCode: ceremony.userCode } : {}),
    instructions: ceremony.userCode
      ? 'Open the URL and enter the code shown.'
      : 'Open the URL in a browser on this machine and sign in.',
    completed,
    cancel() {
      cancelled ??= (async () => {
        // First: Codex answers the cancel with its own account/login/completed (success false,
        // "Login was not completed", 0.171.0), and the ceremony ended because it was cancelled.
        settle({ ok: false, message: 'The sign-in was cancelled.' });
        await connection.peer
          .request('account/login/cancel', { loginId: ceremony.loginId }, { timeoutMs: 2_000 })
          .catch(() => {});
        await connection.close({ stdinGraceMs: 200, termGraceMs: 1000 });
      })();
      return cancelled;
    },
  };
}

function ceremonyOf(started: LoginAccountResponse): { loginId: string; url: string; userCode?: string } | undefined {
  if (!isRecord(started)) return undefined;
  if (started.type === 'chatgpt' && typeof started.authUrl === 'string') {
    return { loginId: started.loginId, url: started.authUrl };
  }
  if (started.type === 'chatgptDeviceCode' && typeof started.verificationUrl === 'string') {
    return { loginId: started.loginId, url: started.verificationUrl, userCode: started.userCode };
  }
  return undefined;
}
