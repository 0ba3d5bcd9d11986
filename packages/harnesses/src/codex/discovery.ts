// Where the Codex CLI is and which version it is. `codex --version` prints "codex-cli 0.169.0".
import { type BinarySpec, defaultParseVersion } from '../runtime/discovery.js';

export const codexBinarySpec: BinarySpec = {
  id: 'codex',
  names: ['codex'],
  versionArgs: ['--version'],
  parseVersion: (stdout) => /codex-cli\s+(\d+\.\d+\.\d+\S*)/.exec(stdout)?.[1] ?? defaultParseVersion(stdout),
};

/** The version in the app-server's initialize userAgent ("reins/0.169.0 (Debian 12; x86_64) ..."). */
export function versionFromUserAgent(userAgent: string): string | undefined {
  return /^[^/\s]+\/(\d+\.\d+\.\d+[^\s]*)/.exec(userAgent)?.[1];
}
