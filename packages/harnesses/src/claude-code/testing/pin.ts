// Claude Code's pinned CLI in harness-clis/ (the current and the previous version) and what --version prints.
import { join } from 'node:path';
import { type HarnessPinSpec, linuxCpu } from '../../testing.js';

export const CLAUDE_CODE_PIN = {
  id: 'claude-code',
  packageName: '@anthropic-ai/claude-code',
  // bin/claude.exe is a stub until the postinstall hard-links the binary over it; the platform package has it.
  locate: (place) => ({ command: join(place.dep(`@anthropic-ai/claude-code-linux-${linuxCpu}`), 'claude'), args: [] }),
  previous: {},
  sdk: '@anthropic-ai/claude-agent-sdk',
  versionOutput: (version) => `${version} (Claude Code)`,
} satisfies HarnessPinSpec;
