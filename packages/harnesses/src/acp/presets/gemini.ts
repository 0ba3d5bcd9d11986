// Gemini CLI over ACP (`gemini --acp`), tested with @google/gemini-cli 0.61.0.
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { binarySpec } from '../discovery.js';
import type { AcpPreset } from '../preset.js';

export const geminiPreset: AcpPreset = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  binary: binarySpec('gemini', ['gemini']),
  // The model is a launch flag: Gemini 0.61.0 reverts to it on session/load even after set_model.
  args: (spec) => ['--acp', ...(spec.model ? ['--model', spec.model] : [])],
  // Without it Gemini re-spawns itself with a larger heap; one process is easier to account for.
  env: () => ({ GEMINI_CLI_NO_RELAUNCH: 'true' }),
  multiSession: true,
  quirks: {
    // 0.61.0: write_file reads the target first; a -32002 for a new file aborts the write.
    missingFileReadsEmpty: true,
    // 0.61.0: thoughts start with a bold subject line, "****\n" when the subject is empty.
    cleanThought: (text) => (text.startsWith('****\n') ? text.slice(5) : text),
    // 0.61.0: the shell tool has no rawInput (the title is the command) and its name is the id's prefix.
    translate: {
      commandFromTitle: true,
      toolNameFromId: (id) => (id.includes('__') ? id.slice(0, id.indexOf('__')) : undefined),
    },
  },
  testedVersions: ['0.61.0'],
};

export function createGeminiHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(geminiPreset, options);
}
