// What the testkit hands each harness's home builder (HomeKit, packages/harnesses/src/testing.ts): the
// shared environment, config writing, ports, the private /tmp and the namespace runner, so a harness
// folder's testing/home.ts never imports the testkit.

import type { HarnessId as CoreHarnessId } from '@reins/core';
import { type BuiltHome, type HomeKit, type HomeRequest, harnessManifest } from '@reins/harnesses';
import { harnessClisDir } from '../hermetic/binaries.js';
import { writeCodexConfig } from './codex-config.js';
import { baseEnvironment, modelList, writeConfig } from './environment.js';
import { freeLoopbackPort } from './free-port.js';
import { privateTmpWrapper } from './private-tmp.js';
import { runHermetic } from './run-hermetic.js';
import { DEFAULT_FAKE_MODEL, FAKE_API_KEY } from './types.js';

export const HOME_KIT: HomeKit = {
  fakeApiKey: FAKE_API_KEY,
  defaultModel: DEFAULT_FAKE_MODEL,
  baseEnvironment,
  modelList,
  writeConfig,
  freeLoopbackPort,
  privateTmpWrapper: (tempHome) => privateTmpWrapper(tempHome),
  harnessClisDir,
  runHermetic: (command, args, env) => runHermetic(command, args, env),
  homeOf: (id, request) => folderHome(id, request),
  writeCodexConfig,
};

/** The home a harness's own folder builds (HarnessTesting.home). */
export async function folderHome(id: CoreHarnessId, request: HomeRequest): Promise<BuiltHome> {
  const load = harnessManifest(id)?.testing?.home;
  if (!load) throw new Error(`${id} has no hermetic home in its folder (its manifest's testing.home).`);
  return (await load())(request, HOME_KIT);
}
