// The console's link (the token in the URL fragment, which never reaches a server) and opening it in
// a browser without the token on a command line; used by `reins console` and its --demo.
import { spawn } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DaemonInfo } from '@reins/client';
import type { CliIo } from '../io.js';

export function consoleLink(info: Pick<DaemonInfo, 'url' | 'token'>, cwd?: string): string {
  const port = new URL(info.url).port;
  const fragment = new URLSearchParams({ token: info.token, ...(cwd ? { cwd } : {}) });
  return `http://127.0.0.1:${port}/#${fragment.toString()}`;
}

/** The command that opens a file in the desktop's browser, when there is a desktop. */
function opener(env: NodeJS.ProcessEnv): string[] | undefined {
  if (process.platform === 'darwin') return ['open'];
  if (process.platform === 'win32') return ['cmd', '/c', 'start', '""'];
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return ['xdg-open'];
  return undefined;
}

/**
 * Opens the link without putting the token on a command line (any local user can read those):
 * a small page in $REINS_HOME (mode 0600, like daemon.json) redirects to it.
 */
export async function openInBrowser(link: string, home: string, io: CliIo): Promise<void> {
  const command = opener(io.env);
  if (!command) return;
  const page = join(home, 'console.html');
  const target = JSON.stringify(link).replace(/</g, '\\u003c');
  await writeFile(
    page,
    `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Reins console</title><script>location.replace(${target})</script>\n`,
    { mode: 0o600 },
  );
  await chmod(page, 0o600);
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, [...args, page], { detached: true, stdio: 'ignore' });
  child.on('error', () => {
    io.stderr.write('reins console: could not open a browser; open the link above yourself.\n');
  });
  child.unref();
}
