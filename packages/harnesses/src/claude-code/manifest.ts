// Claude Code (through the Agent SDK, on the discovered `claude` binary): what Reins knows without
// loading the adapter (and with it the Agent SDK).
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { claudeCodeImplemented } from './capabilities.js';
import { claudeBinarySpec } from './discovery.js';
import { missingSandboxTools } from './posture.js';
import { CLAUDE_CODE_CONFORMANCE } from './testing/conformance.js';
import { CLAUDE_CODE_PIN } from './testing/pin.js';

export const CLAUDE_CODE_MANIFEST: HarnessManifest = {
  id: 'claude-code',
  displayName: 'Claude Code',
  binary: claudeBinarySpec,
  install: 'npm install -g @anthropic-ai/claude-code',
  npmPackage: '@anthropic-ai/claude-code',
  implemented: claudeCodeImplemented,
  testedVersions: ['2.1.197', '2.1.332'],
  // Its sandbox on Linux (posture.ts).
  ownSandbox: { kind: 'tools-on-path', missing: missingSandboxTools, install: 'apt install bubblewrap socat' },
  testing: {
    pin: CLAUDE_CODE_PIN,
    conformance: CLAUDE_CODE_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    fake: testingSource(import.meta.url, './testing/fake.mjs'),
    fuzz: async () => (await import('./testing/fuzz.js')).buildFuzzTarget,
    demo: true,
    tools: {
      shell: [{ name: 'Bash', args: 'command' }],
      write: [{ name: 'Write', args: { kind: 'content', pathKey: 'file_path' } }],
    },
  },
  load: async (options) => (await import('./index.js')).createClaudeCodeHarness(options),
};
