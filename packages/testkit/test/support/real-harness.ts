// Per-test setup for the real tier: proves the namespace, then a fresh temp home, a scripted model server
// inside the same namespace, the harness home, and a workspace folder to run the CLI in.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type HarnessHomeOptions, type HarnessLaunch, harnessLaunch } from '../../src/harness-homes/index.js';
import { assertHermetic } from '../../src/hermetic/assert-hermetic.js';
import type { HarnessId } from '../../src/hermetic/binaries.js';
import { makeTempHome, type TempHome } from '../../src/hermetic/temp-home.js';
import { type ModelServer, startModelServer } from '../../src/model-server/index.js';
import { HarnessProcess } from './harness-process.js';

export interface RealHarness {
  server: ModelServer;
  tempHome: TempHome;
  workspace: string;
  launch: HarnessLaunch;
  /** Spawns the CLI in the workspace with the launch line (extra arguments appended). */
  start(extraArgs?: string[]): HarnessProcess;
  /** Stops every process started here, the model server, and removes the temp home. */
  cleanup(): Promise<void>;
}

export async function setUpRealHarness(
  id: HarnessId,
  options: Partial<Pick<HarnessHomeOptions, 'model' | 'extraModels'>> = {},
): Promise<RealHarness> {
  await assertHermetic();
  const tempHome = await makeTempHome(`reins-${id}-`);
  const server = await startModelServer();
  const workspace = join(tempHome.dir, 'workspace');
  await mkdir(workspace);
  const launch = await harnessLaunch(id, { ...options, modelServerUrl: server.url, tempHome });
  const processes: HarnessProcess[] = [];
  return {
    server,
    tempHome,
    workspace,
    launch,
    start(extraArgs = []) {
      const process = new HarnessProcess({ ...launch, args: [...launch.args, ...extraArgs] }, workspace);
      processes.push(process);
      return process;
    },
    async cleanup() {
      await Promise.all(processes.map((process) => process.close()));
      await server.close();
      await tempHome.cleanup();
    },
  };
}

/** The text of every scripted request, for "the server saw the request" assertions. */
export function scriptedRequests(server: ModelServer) {
  return server.requests.filter((request) => request.scripted);
}
