// A fresh HOME and TMPDIR per test, so that no harness reads or writes the developer's own files
// (several CLIs write under $HOME and /tmp even for --version) and tests cannot see each other's state.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempHome {
  /** The folder that holds everything below; removed by cleanup(). */
  dir: string;
  home: string;
  tmp: string;
  cleanup(): Promise<void>;
}

export async function makeTempHome(prefix = 'reins-home-'): Promise<TempHome> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  await Promise.all([mkdir(home), mkdir(tmp)]);
  return {
    dir,
    home,
    tmp,
    // Retries: a harness that was just killed may still be closing files in there.
    cleanup: () => rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 }),
  };
}
