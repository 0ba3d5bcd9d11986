// `--token-file PATH`: the token every client of this daemon must present, shared by every gateway
// behind one address (a Kubernetes Secret mounted as a file). Like REINS_HOME's check (home.ts),
// a file other users could read is refused with the chmod that fixes it, before its content is
// read; so is an empty or short token, with how to make a good one. The token's text never
// appears in an error, a log line or an error's data.
import { open, stat } from 'node:fs/promises';
import { ReinsError } from '@reins/core';

/** The shortest token accepted (a random base64 token of 32 bytes has 44 characters). */
export const MIN_TOKEN_LENGTH = 32;
/** A token file holds one token; anything larger is not one. */
const MAX_TOKEN_FILE_BYTES = 4_096;

const MAKE_ONE = (path: string) => `(umask 077; openssl rand -base64 32 > ${path})`;

function refuse(path: string, message: string, reason: string): ReinsError {
  return new ReinsError('invalid_input', message, { data: { field: 'tokenFile', path, reason } });
}

/** Reads and checks the token file; the answer is its token (one line, surrounding whitespace dropped). */
export async function readTokenFile(path: string): Promise<string> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  if (!info.isFile()) {
    throw refuse(
      path,
      `The token file ${path} is not a file: point --token-file at a file holding the token.`,
      'not_a_file',
    );
  }
  const mode = info.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw refuse(
      path,
      `The token file ${path} can be read or changed by ${mode & 0o007 ? 'other users' : 'its group'} (mode ${mode.toString(8).padStart(3, '0')}): anyone who reads it can run agents through this daemon. Fix it with: chmod 600 ${path} (a Kubernetes Secret: defaultMode: 0400).`,
      'loose_mode',
    );
  }
  if (info.size > MAX_TOKEN_FILE_BYTES) {
    throw refuse(
      path,
      `The token file ${path} is ${info.size} bytes: it should hold one token (at most ${MAX_TOKEN_FILE_BYTES} bytes), e.g. made with ${MAKE_ONE(path)}.`,
      'too_large',
    );
  }
  let text: string;
  try {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw unreadable(path, error);
  }
  return checkToken(text, path);
}

/** The token in a token file's text, or invalid_input saying what is wrong (never what the text is). */
export function checkToken(text: string, path: string): string {
  const token = text.trim();
  if (token === '') {
    throw refuse(path, `The token file ${path} is empty: put a random token in it, e.g. ${MAKE_ONE(path)}.`, 'empty');
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw refuse(
      path,
      `The token file ${path} must hold one token on one line, of printable ASCII characters without spaces, e.g. made with ${MAKE_ONE(path)}.`,
      'bad_characters',
    );
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw refuse(
      path,
      `The token in ${path} has ${token.length} characters; a shared token needs at least ${MIN_TOKEN_LENGTH} random ones: make one with ${MAKE_ONE(path)}.`,
      'too_short',
    );
  }
  return token;
}

function unreadable(path: string, error: unknown): ReinsError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'there is no such file'
      : code === 'EACCES'
        ? 'permission denied (run the daemon as the user who owns it)'
        : ((error as Error).message ?? String(error));
  return refuse(path, `Cannot read the token file ${path}: ${why}.`, code === 'ENOENT' ? 'missing' : 'unreadable');
}
