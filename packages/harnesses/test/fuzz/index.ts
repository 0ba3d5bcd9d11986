// Every adapter's translation fuzz target (see target.ts).
import { acpTarget } from './acp.js';
import { codexTarget } from './codex.js';
import { openClawTarget } from './openclaw.js';
import { piTarget } from './pi.js';
import { ampTarget, claudeCodeTarget } from './stream-json.js';
import type { FuzzTarget } from './target.js';

export type { FuzzTarget } from './target.js';

export const FUZZ_TARGETS: readonly FuzzTarget[] = [
  codexTarget,
  acpTarget,
  claudeCodeTarget,
  ampTarget,
  piTarget,
  openClawTarget,
];
