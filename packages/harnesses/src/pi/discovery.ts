// How Reins finds Pi: the `pi` executable (@mariozechner/pi-coding-agent); `pi --version` prints the
// bare version ("0.73.1") on 0.73.1.
import { envOrHome } from '../runtime/confinement.js';
import type { BinarySpec } from '../runtime/discovery.js';

export const PI_BINARY: BinarySpec = {
  id: 'pi',
  names: ['pi'],
  versionArgs: ['--version'],
  // Settings, auth, models and the session files (sessions/) live in its agent folder.
  stateFolders: (env) => envOrHome(env, 'PI_CODING_AGENT_DIR', '.pi/agent'),
};

/** The Pi versions the adapter was built and tested against. */
export const PI_TESTED_VERSIONS = ['0.73.1'];

/** How users install it (the manifest's install hint and the adapter's not-found message). */
export const PI_INSTALL = 'npm install -g @mariozechner/pi-coding-agent';
