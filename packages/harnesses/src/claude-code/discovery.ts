// How Reins finds Claude Code: the `claude` executable (REINS_CLAUDE_CODE_BIN overrides PATH).
// `claude --version` prints "2.1.197 (Claude Code)" offline in ~0.15 s (2.1.197).
import { type BinarySpec, pathApi } from '../runtime/index.js';

export const claudeBinarySpec: BinarySpec = {
  id: 'claude-code',
  names: ['claude'],
  versionArgs: ['--version'],
  parseVersion: (stdout) => /^\s*(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)/.exec(stdout)?.[1],
  // `claude migrate-installer` / the local install puts the launcher here (not on PATH by default).
  installPaths: ({ platform, home }) => [
    pathApi(platform).join(home, '.claude', 'local', platform === 'win32' ? 'claude.exe' : 'claude'),
  ],
};
