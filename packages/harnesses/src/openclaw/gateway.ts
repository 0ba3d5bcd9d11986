// The local OpenClaw gateway a session starts when no running gateway is configured:
// `openclaw gateway run --bind loopback --auth token` on a free loopback port, as a HarnessProcess.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { isRecord } from '@reins/core';
import { HarnessProcess } from '../runtime/child-process.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (isRecord(address) ? resolve(Number(address.port)) : reject(new Error('no port'))));
    });
  });
}

/** A local gateway owned by one session. */
export interface LocalGateway {
  url: string;
  token: string;
  process: HarnessProcess;
}

/** `openclaw gateway run` on loopback with token auth: how Reins (and the hermetic home) start a gateway. */
export function gatewayRunArgs(port: number, token: string): string[] {
  return [
    'gateway',
    'run',
    '--port',
    String(port),
    '--bind',
    'loopback',
    '--auth',
    'token',
    '--token',
    token,
    '--allow-unconfigured',
  ];
}

export async function startLocalGateway(input: {
  binaryPath: string;
  cwd: string;
  env: Record<string, string>;
  port?: number;
  commandPrefix?: string[];
  extraArgs?: string[];
}): Promise<LocalGateway> {
  const port = input.port ?? (await freePort());
  const token = randomBytes(16).toString('hex');
  const gatewayArgs = [...gatewayRunArgs(port, token), ...(input.extraArgs ?? [])];
  const line = [...(input.commandPrefix ?? []), input.binaryPath];
  const command = line[0] as string;
  const prefix = line.slice(1);
  const process = await HarnessProcess.start({
    command,
    args: [...prefix, ...gatewayArgs],
    cwd: input.cwd,
    env: { OPENCLAW_NO_RESPAWN: '1', ...input.env },
    label: 'openclaw gateway run',
    harness: 'openclaw',
  });
  return { url: `ws://127.0.0.1:${port}`, token, process };
}
