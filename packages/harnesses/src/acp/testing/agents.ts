// What every ACP agent's test side shares (each agent's own part is in presets/<id>/testing/): the SDK its
// pin names, and how the conformance suite runs it on its pinned CLI: the preset with the located binary,
// the home's environment and the home's launch arguments minus what the preset adds itself.
import type { ConformanceRecipe } from '../../testing.js';

/** Every ACP agent is driven through the ACP SDK (the canary tries its newest version too). */
export const ACP_SDK = '@agentclientprotocol/sdk';

/** The switch the ACP presets add themselves; the home builders list it too. */
const ACP_MODE_ARGS = new Set(['--acp', 'acp']);

/** The home's launch args minus what the ACP preset adds itself (the ACP switch, `--model <id>`). */
function withoutPresetArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--model') i++;
    else if (!ACP_MODE_ARGS.has(arg)) out.push(arg);
  }
  return out;
}

/** The harness options of a conformance launch, the same for every ACP agent. */
export const acpAgentOptions: ConformanceRecipe['options'] = ({ binary, home }) => ({
  binaryPath: binary.command,
  binaryArgs: binary.args,
  baseEnv: home.env,
  extraArgs: withoutPresetArgs(home.args),
});
