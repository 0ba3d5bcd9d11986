// A daemon bound to every interface (0.0.0.0 and ::), which only the loopback-only network
// namespace may do in a test (assertHermetic first: nothing here can reach another host). It takes
// the token file's token, daemon.json points local clients at 127.0.0.1, a client on 127.0.0.1
// gets in (:: is dual-stack), and an interface address of the namespace is one of its names.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertHermetic } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, readDaemonFile, silentLogger, startDaemon } from '../src/index.js';
import { client, RawSocket } from './helpers.js';

let dir: string;
let daemon: Daemon | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-listen-real-'));
});
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('a daemon on every interface, inside the loopback-only namespace', () => {
  it.each(['0.0.0.0:0', '[::]:0'])('%s: the token file, a local url, and a client on 127.0.0.1', async (listen) => {
    await assertHermetic();
    const token = randomBytes(32).toString('base64');
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, token, { mode: 0o600 });
    await chmod(tokenFile, 0o600);
    daemon = await startDaemon({
      home: join(dir, 'home'),
      listen,
      tokenFile,
      harnesses: [],
      consoleDir: false,
      logger: silentLogger,
    });
    const host = listen.startsWith('[') ? '[::]' : '0.0.0.0';
    expect(daemon.address).toBe(`${host}:${daemon.port}`);
    expect(daemon.url).toBe(`ws://127.0.0.1:${daemon.port}`);
    expect((await readDaemonFile(join(dir, 'home')))?.url).toBe(daemon.url);
    const reins = await client(daemon.url, token);
    expect(await reins.listSessions()).toEqual([]);
    reins.close();
    // Every IPv4 address of the namespace's interfaces (at least its loopback) is a name of the daemon.
    const addresses = Object.values(networkInterfaces())
      .flat()
      .filter((entry) => entry?.family === 'IPv4')
      .map((entry) => entry?.address as string);
    for (const address of addresses) {
      const raw = await RawSocket.open(daemon.url, { Host: `${address}:${daemon.port}` });
      expect((await raw.request('initialize', { token, protocolVersion: 2 })).error).toBeUndefined();
      raw.socket.close();
    }
  });
});
