// `--token-file`: a file others can read is refused before it is read (with the chmod), an empty,
// short or multi-word token is refused with how to make one, and no refusal carries the token.
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReinsError } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkToken, MIN_TOKEN_LENGTH, readTokenFile } from './token-file.js';

const GOOD = 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-token-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tokenFile(content: string, mode = 0o600): Promise<string> {
  const path = join(dir, 'token');
  await writeFile(path, content, { mode });
  await chmod(path, mode);
  return path;
}

async function refusal(path: string): Promise<ReinsError> {
  const error = await readTokenFile(path).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ReinsError.isInstance(error)) throw new Error(`expected a ReinsError, got ${String(error)}`);
  expect(error.code).toBe('invalid_input');
  return error;
}

describe('readTokenFile', () => {
  it('reads the token of a 0600 or 0400 file, without the trailing newline', async () => {
    expect(await readTokenFile(await tokenFile(`${GOOD}\n`))).toBe(GOOD);
    expect(await readTokenFile(await tokenFile(`  ${GOOD}\r\n`, 0o400))).toBe(GOOD);
  });

  it('follows a symlink to the file (a mounted Kubernetes Secret is one)', async () => {
    const target = await tokenFile(GOOD, 0o400);
    const link = join(dir, 'linked');
    await symlink(target, link);
    expect(await readTokenFile(link)).toBe(GOOD);
  });

  it.each([0o640, 0o604, 0o644, 0o660, 0o610])(
    'refuses mode %s with the chmod that fixes it, and never the token',
    async (mode) => {
      const path = await tokenFile(GOOD, mode);
      const error = await refusal(path);
      expect(error.message).toContain(`chmod 600 ${path}`);
      expect(error.message).toContain(mode.toString(8));
      expect(JSON.stringify({ message: error.message, data: error.data })).not.toContain(GOOD);
    },
  );

  it('refuses a missing file and a folder', async () => {
    expect((await refusal(join(dir, 'nope'))).message).toMatch(/Cannot read the token file .*no such file/);
    expect((await refusal(dir)).message).toMatch(/is not a file/);
  });

  it.skipIf(process.getuid?.() === 0)('refuses a file it may not read', async () => {
    const path = await tokenFile(GOOD, 0o000);
    expect((await refusal(path)).message).toMatch(/permission denied/);
  });

  it('refuses an empty file and a short token, saying how to make one', async () => {
    expect((await refusal(await tokenFile('\n'))).message).toMatch(/is empty: .*openssl rand -base64 32/);
    const short = 'a'.repeat(MIN_TOKEN_LENGTH - 1);
    const error = await refusal(await tokenFile(short));
    expect(error.message).toMatch(/has 31 characters; .*at least 32 .*openssl rand -base64 32/);
    expect(error.message).not.toContain(short);
  });

  it('refuses a file far larger than a token', async () => {
    expect((await refusal(await tokenFile('x'.repeat(10_000)))).message).toMatch(/should hold one token/);
  });
});

describe('checkToken', () => {
  it('refuses spaces, several lines and control characters', () => {
    for (const text of [`${GOOD} ${GOOD}`, `${GOOD}\n${GOOD}`, `${GOOD}\u0000`, `${GOOD}é`]) {
      expect(() => checkToken(text, '/t')).toThrow(/one token on one line, of printable ASCII/);
    }
  });
});
