// How Reins finds Amp: the `amp` executable (npm @ampcode/cli). Its versions look like
// "0.0.1790142911-g7618fb" (a timestamp build), which the default x.y.z parser keeps whole.
import { envOrHome } from '../runtime/confinement.js';
import type { BinarySpec } from '../runtime/discovery.js';

export const AMP_BINARY: BinarySpec = {
  id: 'amp',
  names: ['amp'],
  versionArgs: ['--version'],
  parseVersion: (stdout) => /\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?/.exec(stdout)?.[0],
  // Seen at start (0.0.1790142911): its log in the cache, a device id in the data folder, its config folder.
  stateFolders: (env) => [
    ...envOrHome(env, 'XDG_CONFIG_HOME', '.config', 'amp'),
    ...envOrHome(env, 'XDG_DATA_HOME', '.local/share', 'amp'),
    ...envOrHome(env, 'XDG_CACHE_HOME', '.cache', 'amp'),
  ],
};

/** No live Amp session has been observed (it needs the Amp service); this is the build that had a linux-x64 package. */
export const AMP_KNOWN_VERSIONS = ['0.0.1790142911-g7618fb'];

/** How users install it (the manifest's install hint and the adapter's not-found message). */
export const AMP_INSTALL = 'npm install -g @ampcode/cli';
