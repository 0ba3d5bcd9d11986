// Where the Codex CLI is and which version it is. `codex --version` prints "codex-cli 0.169.0".
import { type BinarySpec, defaultParseVersion } from '../runtime/discovery.js';

/** How users install it (health's fix, the not-found hint). */
export const CODEX_INSTALL = 'npm install -g @openai/codex';

export const codexBinarySpec: BinarySpec = {
  id: 'codex',
  names: ['codex'],
  versionArgs: ['--version'],
  parseVersion: (stdout) => /codex-cli\s+(\d+\.\d+\.\d+\S*)/.exec(stdout)?.[1] ?? defaultParseVersion(stdout),
  // The ChatGPT desktop app ships a codex binary; the user's own install must win over it.
  bundledPaths: ({ platform }) => (platform === 'darwin' ? ['/Applications/ChatGPT.app/Contents/Resources/codex'] : []),
};

/** The version in the app-server's initialize userAgent ("reins/0.169.0 (Debian 12; x86_64) ..."). */
export function versionFromUserAgent(userAgent: string): string | undefined {
  return /^[^/\s]+\/(\d+\.\d+\.\d+[^\s]*)/.exec(userAgent)?.[1];
}
