// The environment a user would have for a pinned real CLI: its hermetic home (HOME, config, fake
// key, telemetry off) plus the REINS_<ID>_BIN override pointing at the pinned binary.
import type { HarnessId } from '@reins/core';
import {
  type HarnessLaunch,
  harnessBinary,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  type TempHome,
} from '@reins/testkit';

export interface UserEnv {
  env: NodeJS.ProcessEnv;
  launch: HarnessLaunch;
  temp: TempHome;
  workdir: string;
}

export async function userEnvFor(id: 'codex' | 'claude-code', server: ModelServer): Promise<UserEnv> {
  const temp = await makeTempHome(`reins-cli-${id}-`);
  const binary = harnessBinary(id);
  const launch = await harnessLaunch(id, {
    modelServerUrl: server.url,
    tempHome: temp,
    binary,
    extraModels: ['fake-model-2'],
  });
  const variable = `REINS_${(id as HarnessId).toUpperCase().replace(/-/g, '_')}_BIN`;
  const workdir = temp.dir;
  return { env: { ...launch.env, [variable]: binary.command }, launch, temp, workdir };
}
