// Gemini CLI's pinned CLI in harness-clis/ and what it prints for --version.
import { type HarnessPinSpec, nodeScript } from '../../../../testing.js';
import { ACP_SDK } from '../../../testing/agents.js';

export const GEMINI_PIN = {
  id: 'gemini',
  packageName: '@google/gemini-cli',
  sdk: ACP_SDK,
  locate: nodeScript('bundle/gemini.js', 'host'),
  versionOutput: (version) => version,
} satisfies HarnessPinSpec;
