// The executable names of every known harness, so `reins doctor` can look for a harness even when this
// build has no adapter for it. An adapter's own `<harness>/discovery.ts` spec (version parsing, extra
// paths) takes precedence where it exists. `acp` has none: it is whatever ACP command the user names.
import type { HarnessId } from '@reins/core';
import type { BinarySpec } from './discovery.js';

const NAMES: Record<Exclude<HarnessId, 'acp'>, string> = {
  'claude-code': 'claude',
  codex: 'codex',
  gemini: 'gemini',
  'qwen-code': 'qwen',
  copilot: 'copilot',
  opencode: 'opencode',
  'claude-agent-acp': 'claude-agent-acp',
  'codex-acp': 'codex-acp',
  hermes: 'hermes',
  pi: 'pi',
  openclaw: 'openclaw',
  amp: 'amp',
};

/** The default BinarySpec for a harness id; undefined for `acp` (it needs a command). */
export function defaultBinarySpec(id: HarnessId): BinarySpec | undefined {
  if (id === 'acp') return undefined;
  return { id, names: [NAMES[id]] };
}
