// Codex (`codex app-server`): what Reins knows without loading the adapter.
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { CODEX_IMPLEMENTED } from './capabilities.js';
import { codexBinarySpec } from './discovery.js';
import { CODEX_CONFORMANCE } from './testing/conformance.js';
import { CODEX_PIN } from './testing/pin.js';

export const CODEX_MANIFEST: HarnessManifest = {
  id: 'codex',
  displayName: 'Codex',
  binary: codexBinarySpec,
  install: 'npm install -g @openai/codex',
  npmPackage: '@openai/codex',
  implemented: CODEX_IMPLEMENTED,
  testedVersions: ['0.169.0', '0.171.0'],
  // `codex sandbox` runs a command under its Linux sandbox; workspace-write also lets it write /tmp and $TMPDIR.
  ownSandbox: { kind: 'write-probe', args: ['sandbox', '-c', 'sandbox_mode=workspace-write', '--'] },
  // A warm app-server is a host with no thread yet: the next thread takes it, or waits for it (hosts.ts).
  sessionsWaitForWarm: true,
  testing: {
    pin: CODEX_PIN,
    conformance: CODEX_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    fake: testingSource(import.meta.url, './testing/fake.mjs'),
    fuzz: async () => (await import('./testing/fuzz.js')).buildFuzzTarget,
    demo: true,
    tools: {
      // Older Codex builds offered `shell` with an argv array.
      shell: [
        { name: 'exec_command', args: 'cmd' },
        { name: 'shell', args: 'argv' },
      ],
      write: [{ name: 'apply_patch', args: { kind: 'patch' } }],
    },
  },
  load: async (options) => (await import('./index.js')).createCodexHarness(options),
};
