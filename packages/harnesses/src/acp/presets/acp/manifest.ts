// The generic `acp` harness's manifest: any other ACP agent, whose command comes from the options or
// REINS_ACP_COMMAND ("my-agent --acp"); the adapter loads only when a harness is made.
import { ReinsError } from '@reins/core';
import type { HarnessManifest } from '../../../manifest.js';
import { testingSource } from '../../../testing.js';
import { ACP_IMPLEMENTED } from '../../implemented.js';

export const GENERIC_ACP_MANIFEST: HarnessManifest = {
  id: 'acp',
  displayName: 'ACP agent',
  install: 'install your ACP agent, then set REINS_ACP_COMMAND="<agent command>"',
  implemented: ACP_IMPLEMENTED,
  testedVersions: [],
  // The fake ACP agent (acp/testing/fake.mjs) stands for every ACP agent in the process tier.
  testing: {
    fake: testingSource(import.meta.url, '../../testing/fake.mjs'),
    // One target for every ACP agent: each fixture gets its agent's translation quirks.
    fuzz: async () => (await import('../../testing/fuzz.js')).buildFuzzTarget,
  },
  load: async (options) => {
    const words = (typeof options.command === 'string' ? options.command : (process.env.REINS_ACP_COMMAND ?? ''))
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    const [command, ...args] = words;
    if (!command) {
      throw new ReinsError(
        'invalid_input',
        'The generic acp harness needs the agent command: set REINS_ACP_COMMAND (e.g. "my-agent --acp").',
        { harness: 'acp' },
      );
    }
    const extra = Array.isArray(options.args) ? (options.args as string[]) : [];
    return (await import('./preset.js')).createAcpHarness({ ...options, command, args: [...args, ...extra] });
  },
};
