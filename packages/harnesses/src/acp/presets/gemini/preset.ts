// Gemini CLI over ACP (`gemini --acp`), tested with @google/gemini-cli 0.61.0.

import { envOrHome } from '../../../runtime/confinement.js';
import type { AcpPreset } from '../../preset.js';

/**
 * 0.61.0 sends every thought chunk as `**<subject>**\n<description>` with the description TRIMMED and
 * the subject empty on chunks that continue a thought. The empty heading goes; the whitespace trimmed
 * at a continuing chunk's boundary comes back as one space (the original character is lost: a space is
 * what prose most often had there); a new subject starts a new paragraph.
 */
export function geminiThoughtChunk(text: string, continuing: boolean): string {
  const heading = /^\*\*(.*?)\*\*\n/s.exec(text);
  if (!heading) return text;
  const body = text.slice(heading[0].length);
  if (heading[1] === '') return continuing && body !== '' ? ` ${body}` : body;
  return continuing ? `\n\n${text}` : text;
}

export const geminiPreset: AcpPreset = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  binary: { id: 'gemini', names: ['gemini'], stateFolders: (env) => envOrHome(env, 'GEMINI_CLI_HOME', '', '.gemini') },
  // The model is a launch flag: Gemini 0.61.0 reverts to it on session/load even after set_model.
  args: (spec) => ['--acp', ...(spec.model ? ['--model', spec.model] : [])],
  // Without it Gemini re-spawns itself with a larger heap; one process is easier to account for.
  env: () => ({ GEMINI_CLI_NO_RELAUNCH: 'true' }),
  multiSession: true,
  quirks: {
    // 0.61.0: write_file reads the target first; a -32002 for a new file aborts the write.
    missingFileReadsEmpty: true,
    // 0.61.0: the shell tool has no rawInput (the title is the command) and its name is the id's prefix.
    translate: {
      commandFromTitle: true,
      toolNameFromId: (id) => (id.includes('__') ? id.slice(0, id.indexOf('__')) : undefined),
      thoughtChunk: geminiThoughtChunk,
    },
  },
  testedVersions: ['0.61.0'],
};
