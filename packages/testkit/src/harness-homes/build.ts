// Builds a harness's hermetic home through its manifest's testing part (the builder in its folder, handed
// the testkit's HomeKit), and the exact spawn line of a pinned CLI.
import { harnessManifest } from '@reins/harnesses';
import { HARNESS_IDS, type HarnessBinary, type HarnessId, harnessBinary } from '../hermetic/binaries.js';
import { HOME_KIT } from './kit.js';
import type { HarnessHome, HarnessHomeBuilder, HarnessHomeOptions } from './types.js';

export async function buildHarnessHome(id: HarnessId, options: HarnessHomeOptions): Promise<HarnessHome> {
  const load = harnessManifest(id)?.testing?.home;
  if (!load) throw new Error(`${id} has no hermetic home: its manifest's testing part names no home builder.`);
  const binary = options.binary ?? harnessBinary(id);
  const built = await (await load())({ ...options, binary }, HOME_KIT);
  return { id, ...built };
}

export const harnessHomeBuilders = Object.fromEntries(
  HARNESS_IDS.map((id) => [id, (options: HarnessHomeOptions) => buildHarnessHome(id, options)]),
) as Record<HarnessId, HarnessHomeBuilder>;

export interface HarnessLaunch {
  home: HarnessHome;
  binary: HarnessBinary;
  /** What to spawn: the wrapper (if any), then the binary and all arguments. */
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Binary + home in one: the exact spawn line for a harness in its headless protocol mode. */
export async function harnessLaunch(id: HarnessId, options: HarnessHomeOptions): Promise<HarnessLaunch> {
  const binary = options.binary ?? harnessBinary(id);
  const home = await buildHarnessHome(id, { ...options, binary });
  const [command, ...args] = [...(home.wrapper ?? []), binary.command, ...binary.args, ...home.args] as [
    string,
    ...string[],
  ];
  return { home, binary, command, args, env: home.env };
}
