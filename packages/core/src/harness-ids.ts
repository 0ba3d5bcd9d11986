// The public harness ids (docs/architecture/contract.md). `acp` is any other Agent Client Protocol command.
import { z } from 'zod';

export const HARNESS_IDS = [
  'claude-code',
  'codex',
  'gemini',
  'qwen-code',
  'copilot',
  'opencode',
  'claude-agent-acp',
  'codex-acp',
  'hermes',
  'pi',
  'openclaw',
  'amp',
  'acp',
] as const;
export type HarnessId = (typeof HARNESS_IDS)[number];
export const HarnessIdSchema = z.enum(HARNESS_IDS);

export function isHarnessId(value: string): value is HarnessId {
  return (HARNESS_IDS as readonly string[]).includes(value);
}
