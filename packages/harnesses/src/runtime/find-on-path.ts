// Finding a tool by name on a PATH value, synchronously (bubblewrap, socat: Linux and macOS tools).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first runnable `name` in the folders of `path` (a PATH value), else undefined. */
export function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const folder of (path ?? '').split(delimiter).filter(Boolean)) {
    const file = join(folder, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}
