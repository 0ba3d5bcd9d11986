// Pure, but for reading a token file: where the bridge listens and who may connect, from the flags
// `codex app-server` 0.171.0 takes (`--listen stdio://|unix://|unix://PATH|ws://IP:PORT|off`,
// `--ws-auth capability-token` with `--ws-token-file` or `--ws-token-sha256`), with Codex's own
// refusals (docs/architecture/bridges.md, "Codex app-server out").
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ParamsError } from './requests.js';

export type ListenPlan =
  | { kind: 'stdio' }
  | { kind: 'off' }
  | { kind: 'unix'; path: string }
  | { kind: 'ws'; host: string; port: number; loopback: boolean; tokenSha256?: Buffer };

export interface ListenFlags {
  listen?: string;
  wsAuth?: string;
  wsTokenFile?: string;
  wsTokenSha256?: string;
  /** Any of the signed-bearer-token flags given (--ws-shared-secret-file, --ws-issuer, ...). */
  signedBearerFlag?: string;
  env: NodeJS.ProcessEnv;
}

const LISTEN_FORMS = '`stdio://`, `unix://`, `unix://PATH`, `ws://IP:PORT`, or `off`';

/** Codex's default control socket: `$CODEX_HOME/app-server-control/app-server-control.sock`. */
export function defaultSocketPath(env: NodeJS.ProcessEnv): string {
  const codexHome = env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
  return join(codexHome, 'app-server-control', 'app-server-control.sock');
}

export function isLoopbackIp(host: string): boolean {
  return host === '::1' || host.startsWith('127.') || host === '::ffff:127.0.0.1';
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function listenOf(value: string, env: NodeJS.ProcessEnv): ListenPlan {
  if (value === 'stdio://') return { kind: 'stdio' };
  if (value === 'off') return { kind: 'off' };
  if (value.startsWith('unix://')) {
    const path = value.slice('unix://'.length);
    return { kind: 'unix', path: path === '' ? defaultSocketPath(env) : path };
  }
  if (value.startsWith('ws://')) {
    const match = /^ws:\/\/(?:\[([^\]]+)\]|([^:/[\]]+)):(\d{1,5})$/.exec(value);
    const host = match?.[1] ?? match?.[2] ?? '';
    const port = Number(match?.[3]);
    if (!match || isIP(host) === 0 || port > 65_535) {
      throw new ParamsError('--listen', `invalid websocket --listen URL \`${value}\`; expected \`ws://IP:PORT\`.`);
    }
    return { kind: 'ws', host, port, loopback: isLoopbackIp(host) };
  }
  throw new ParamsError('--listen', `unsupported --listen URL \`${value}\`; expected ${LISTEN_FORMS}.`);
}

/** The plan from the flags; throws ParamsError with Codex's wording where Codex refuses the same. */
export function listenPlanOf(flags: ListenFlags): ListenPlan {
  const plan = listenOf(flags.listen ?? 'stdio://', flags.env);
  const auth = flags.wsAuth;
  if (auth === 'signed-bearer-token' || (auth === undefined && flags.signedBearerFlag)) {
    throw new ParamsError(
      '--ws-auth',
      'signed-bearer-token is not served by the Reins bridge; use `--ws-auth capability-token` with --ws-token-file or --ws-token-sha256.',
    );
  }
  if (auth !== undefined && auth !== 'capability-token') {
    throw new ParamsError('--ws-auth', `takes capability-token or signed-bearer-token (got "${auth}").`);
  }
  if (auth === undefined && (flags.wsTokenFile !== undefined || flags.wsTokenSha256 !== undefined)) {
    throw new ParamsError('--ws-auth', '--ws-token-file and --ws-token-sha256 need `--ws-auth capability-token`.');
  }
  let tokenSha256: Buffer | undefined;
  if (auth === 'capability-token') {
    if (flags.wsTokenFile !== undefined && flags.wsTokenSha256 !== undefined) {
      throw new ParamsError('--ws-auth', 'give one of --ws-token-file and --ws-token-sha256, not both.');
    }
    if (flags.wsTokenFile !== undefined) tokenSha256 = sha256(readToken(flags.wsTokenFile));
    else if (flags.wsTokenSha256 !== undefined) tokenSha256 = hexDigest(flags.wsTokenSha256);
    else {
      throw new ParamsError(
        '--ws-auth',
        '`--ws-token-file` or `--ws-token-sha256` is required when `--ws-auth capability-token` is set.',
      );
    }
  }
  if (plan.kind !== 'ws') {
    // Codex takes auth flags on any transport and uses them on ws only; so does the bridge.
    return plan;
  }
  if (!plan.loopback && !tokenSha256) {
    throw new ParamsError(
      '--listen',
      `refusing to start non-loopback websocket listener ${plan.host}:${plan.port} without auth; configure \`--ws-auth capability-token\`.`,
    );
  }
  return tokenSha256 ? { ...plan, tokenSha256 } : plan;
}

function readToken(path: string): string {
  if (!isAbsolute(path)) throw new ParamsError('--ws-token-file', `takes an absolute path (got "${path}").`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ParamsError('--ws-token-file', `cannot read ${path}: ${(error as Error).message}`);
  }
  // A token file ends with a newline as editors write it; the token is what precedes it.
  const token = text.trim();
  if (token === '') throw new ParamsError('--ws-token-file', `${path} is empty.`);
  return token;
}

function hexDigest(hex: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new ParamsError('--ws-token-sha256', 'takes the 64 hex digits of a SHA-256 digest.');
  }
  return Buffer.from(hex, 'hex');
}
