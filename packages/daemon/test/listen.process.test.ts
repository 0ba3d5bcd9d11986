// `DaemonOptions.listen`, `tokenFile` and `publicOrigins` on a daemon in this process, on
// 127.0.0.1 only: the token comes from the file (and is the one daemon.json holds, 0600), two
// daemons of different homes started with the same file accept the same token, the port asked for
// is the port bound, a bad file stops the start before anything listens or the home is touched,
// and no log line holds the token.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReinsError } from '@reins/core';
import { freeLoopbackPort } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, type Daemon, type DaemonOptions, readDaemonFile, startDaemon } from '../src/index.js';
import { client, RawSocket, RefusedUpgrade } from './helpers.js';

let dir: string;
const daemons: Daemon[] = [];
const lines: string[] = [];
const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-listen-'));
  lines.length = 0;
});
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((daemon) => daemon.close()));
  await rm(dir, { recursive: true, force: true });
});

async function start(name: string, options: DaemonOptions): Promise<Daemon> {
  const daemon = await startDaemon({ home: join(dir, name), harnesses: [], consoleDir: false, logger, ...options });
  daemons.push(daemon);
  return daemon;
}

async function tokenFile(token: string, mode = 0o600): Promise<string> {
  const path = join(dir, `token-${randomBytes(3).toString('hex')}`);
  await writeFile(path, `${token}\n`, { mode });
  await chmod(path, mode);
  return path;
}

describe('a daemon on a token file', () => {
  it('takes its token from the file, writes the same in daemon.json (0600), and never logs it', async () => {
    const token = randomBytes(32).toString('base64');
    const daemon = await start('home', { tokenFile: await tokenFile(token) });
    expect(daemon.token).toBe(token);
    const info = await readDaemonFile(join(dir, 'home'));
    expect(info?.token).toBe(token);
    expect((await stat(daemon.infoPath)).mode & 0o777).toBe(0o600);
    const reins = await client(daemon.url, token);
    expect((await reins.listSessions()).length).toBe(0);
    reins.close();
    const raw = await RawSocket.open(daemon.url);
    const refused = (await raw.request('initialize', { token: `${token}x` })).error?.data;
    expect(refused?.code).toBe('auth_required');
    // The sentence must hold for a token-file daemon too: the token is the file's, not one per start.
    expect(refused?.message).toMatch(/--token-file, that file's content/);
    expect(refused?.message).not.toContain(token);
    expect(lines.some((line) => line.includes('"sharedToken":true'))).toBe(true);
    expect(lines.join('\n')).not.toContain(token);
  });

  it('two daemons started with one file accept one token, on the ports asked for', async () => {
    const token = randomBytes(32).toString('base64url');
    const file = await tokenFile(token);
    const ports = [await freeLoopbackPort(), await freeLoopbackPort()];
    const [one, two] = [
      await start('one', { listen: `127.0.0.1:${ports[0]}`, tokenFile: file }),
      await start('two', { listen: `127.0.0.1:${ports[1]}`, tokenFile: file }),
    ];
    expect([one?.port, two?.port]).toEqual(ports);
    expect(one?.url).toBe(`ws://127.0.0.1:${ports[0]}`);
    expect(one?.address).toBe(`127.0.0.1:${ports[0]}`);
    for (const daemon of [one, two] as Daemon[]) {
      const reins = await client(daemon.url, token);
      expect(await reins.listSessions()).toEqual([]);
      reins.close();
    }
  });

  it('without a token file each start has its own random token', async () => {
    const [one, two] = [await start('one', {}), await start('two', {})];
    expect(one?.token).not.toBe(two?.token);
    expect(one?.token.length).toBeGreaterThanOrEqual(43);
  });

  it('refuses a bad token file before it listens or touches the home', async () => {
    for (const [file, message] of [
      [await tokenFile(randomBytes(32).toString('base64'), 0o644), /chmod 600/],
      [await tokenFile('short'), /at least 32/],
      [join(dir, 'missing'), /no such file/],
    ] as const) {
      const error = await startDaemon({ home: join(dir, 'refused'), tokenFile: file, logger }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(ReinsError.isInstance(error) && error.code).toBe('invalid_input');
      expect((error as Error).message).toMatch(message);
    }
    expect(await readdir(dir)).not.toContain('refused');
  });

  it('answers the Host and Origin of a public origin, and still refuses other names', async () => {
    const daemon = await start('home', { publicOrigins: ['https://reins.example.com'] });
    const raw = await RawSocket.open(daemon.url, { Host: 'reins.example.com', Origin: 'https://reins.example.com' });
    expect((await raw.request('initialize', { token: daemon.token, protocolVersion: 2 })).error).toBeUndefined();
    raw.socket.close();
    const refused = await RawSocket.open(daemon.url, {
      Host: 'reins.example.com',
      Origin: 'https://evil.example',
    }).catch((error: unknown) => error);
    expect((refused as RefusedUpgrade).status).toBe(403);
    const rebound = await RawSocket.open(daemon.url, { Host: 'rebound.example' }).catch((error: unknown) => error);
    expect(rebound).toBeInstanceOf(RefusedUpgrade);
  });
});
