// Real tier: a bridge in front of a REAL pinned harness CLI on the scripted model server, inside the
// loopback-only namespace. The harness's hermetic home gives the launch environment; the bridge runs
// with it (and a REINS_HOME of its own) and hands it on to the harness it starts.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertHermetic,
  type HarnessLaunch,
  harnessBinary,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { REINS } from './processes.js';

export type RealTarget = 'claude-code' | 'pi' | 'codex' | 'claude-agent-acp';

export interface RealBridgeHome {
  target: RealTarget;
  server: ModelServer;
  tempHome: TempHome;
  launch: HarnessLaunch;
  /** The harness binary the bridge is told to run (`--binary`). */
  binaryPath: string;
  /** The model the harness was configured to start on. */
  model: string;
  /** The bridge's environment: the harness's launch environment plus the bridge's own state folder. */
  env: Record<string, string>;
  cwd: string;
  dispose(): Promise<void>;
}

export async function realBridgeHome(target: RealTarget): Promise<RealBridgeHome> {
  await assertHermetic();
  const server = await startModelServer();
  const tempHome = await makeTempHome(`reins-bridge-${target}-`);
  const binary = harnessBinary(target);
  const launch = await harnessLaunch(target, { modelServerUrl: server.url, tempHome, binary });
  const binaryPath =
    target === 'claude-agent-acp'
      ? await nodeScriptShim(tempHome.dir, target, [binary.command, ...binary.args])
      : target === 'pi'
        ? (binary.args[0] ?? binary.command)
        : binary.command;
  return {
    target,
    server,
    tempHome,
    launch,
    binaryPath,
    model: launch.home.models[0] ?? 'fake-model',
    env: { ...launch.env, REINS_HOME: join(tempHome.dir, 'reins-home') },
    cwd: tempHome.dir,
    dispose: async () => {
      await server.close();
      await tempHome.cleanup();
    },
  };
}

/** One executable for `--binary` that runs a JS agent with the Node its pin needs (claude-agent-acp: Node >= 22). */
async function nodeScriptShim(dir: string, name: string, command: string[]): Promise<string> {
  const shim = join(dir, `${name}-bin`);
  await writeFile(shim, `#!/bin/sh\nexec ${command.map((part) => `"${part}"`).join(' ')} "$@"\n`);
  await chmod(shim, 0o755);
  return shim;
}

/** A two-line `codex` a Codex client can launch: it runs the bridge in front of the target. */
export async function codexShim(home: RealBridgeHome): Promise<string> {
  const shim = join(home.tempHome.dir, 'codex');
  await writeFile(
    shim,
    `#!/bin/sh\nexec "${process.execPath}" "${REINS}" bridge codex-app-server -H ${home.target} --binary "${home.binaryPath}" "$@"\n`,
  );
  await chmod(shim, 0o755);
  return shim;
}

/** Scripted model requests so far (a harness's own side requests, e.g. titles, are not scripted). */
export function scriptedRequests(server: ModelServer): number {
  return server.requests.filter((request) => request.scripted).length;
}
