// $REINS_HOME (default ~/.reins) holds daemon.json (the token) and reins.db (prompts, specs): it
// must be ours and writable by us alone. Another user who can write there could swap daemon.json
// and capture every client's token, so a group- or world-writable home, or one owned by someone
// else, is refused with the command that fixes it. A missing home is created 0700.
import { mkdir, stat } from 'node:fs/promises';
import { ReinsError } from '@reins/core';

export async function prepareHome(home: string): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  const info = await stat(home);
  if (!info.isDirectory()) {
    throw new ReinsError(
      'invalid_input',
      `REINS_HOME ${home} is not a folder: point REINS_HOME at a folder (or remove that file).`,
      {
        data: { home },
      },
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new ReinsError(
      'invalid_input',
      `REINS_HOME ${home} belongs to another user (uid ${info.uid}, you are ${uid}): its daemon.json could be swapped under you. Use a folder of your own, e.g. REINS_HOME=~/.reins.`,
      { data: { home, owner: info.uid, uid } },
    );
  }
  const mode = info.mode & 0o777;
  if ((mode & 0o022) !== 0) {
    throw new ReinsError(
      'invalid_input',
      `REINS_HOME ${home} is ${mode & 0o002 ? 'world' : 'group'}-writable (mode ${mode.toString(8).padStart(3, '0')}): another user could replace daemon.json and capture your clients' token. Fix it with: chmod go-w ${home}`,
      { data: { home, mode } },
    );
  }
}
