// The launch key of a Codex app-server: what Codex binds at spawn decides which process a session may
// share; a variable a library sets on Reins' own environment must not split the warm pool.
import { describe, expect, it } from 'vitest';
import { launchKey } from './hosts.js';

const base = { command: '/bin/codex', args: ['app-server'], env: { PATH: '/bin', HOME: '/h' }, requestTimeoutMs: 1 };

describe('launchKey', () => {
  it('differs with the environment Codex gets', () => {
    expect(launchKey({ ...base, tap: undefined })).not.toBe(
      launchKey({ ...base, env: { ...base.env, CODEX_HOME: '/c' }, tap: undefined }),
    );
  });

  it('is the same once the Claude Agent SDK set NoDefaultCurrentDirectoryInExePath on the process', () => {
    expect(launchKey({ ...base, tap: undefined })).toBe(
      launchKey({ ...base, env: { ...base.env, NoDefaultCurrentDirectoryInExePath: '1' }, tap: undefined }),
    );
  });
});
