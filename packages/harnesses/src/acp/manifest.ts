// The ACP agents Reins knows, one line each: every fact of an agent (its preset, manifest and test side)
// lives in its folder, presets/<id>/, and `acp` is any other ACP command. What Reins knows about them
// without loading the ACP adapter or the ACP SDK.
import type { HarnessId } from '@reins/core';
import { ReinsError } from '@reins/core';
import type { AcpPreset } from './preset.js';
import { GENERIC_ACP_MANIFEST } from './presets/acp/manifest.js';
import { CLAUDE_AGENT_ACP_MANIFEST } from './presets/claude-agent-acp/manifest.js';
import { CODEX_ACP_MANIFEST } from './presets/codex-acp/manifest.js';
import { COPILOT_MANIFEST } from './presets/copilot/manifest.js';
import { GEMINI_MANIFEST } from './presets/gemini/manifest.js';
import { HERMES_MANIFEST } from './presets/hermes/manifest.js';
import { OPENCODE_MANIFEST } from './presets/opencode/manifest.js';
import { QWEN_CODE_MANIFEST } from './presets/qwen-code/manifest.js';

/** The agents with a preset, in HARNESS_IDS order. */
const PRESET_MANIFESTS = [
  GEMINI_MANIFEST,
  QWEN_CODE_MANIFEST,
  COPILOT_MANIFEST,
  OPENCODE_MANIFEST,
  CLAUDE_AGENT_ACP_MANIFEST,
  CODEX_ACP_MANIFEST,
  HERMES_MANIFEST,
] as const;

export const ACP_MANIFESTS = [...PRESET_MANIFESTS, GENERIC_ACP_MANIFEST] as const;

type PinOf<Manifest> = Manifest extends { testing: { pin: infer Pin } } ? Pin : never;

/** The pins of the agents pinned in harness-clis/, their ids kept literal for the testkit's types. */
export const ACP_PINS = PRESET_MANIFESTS.flatMap((manifest) =>
  manifest.testing?.pin ? [manifest.testing.pin] : [],
) as PinOf<(typeof PRESET_MANIFESTS)[number]>[];

/** The preset of an ACP agent Reins knows (the generic `acp` has none: it is made from its command). */
export function acpPreset(id: HarnessId): AcpPreset {
  const manifest = PRESET_MANIFESTS.find((candidate) => candidate.id === id);
  if (!manifest) throw new ReinsError('invalid_input', `${id} is not an ACP agent with a preset.`, { harness: id });
  return manifest.preset;
}
