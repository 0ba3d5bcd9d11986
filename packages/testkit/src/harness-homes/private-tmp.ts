// A command prefix that runs a harness in its own mount namespace whose /tmp is a folder of the test's temp
// home, for harnesses that write fixed /tmp paths whatever TMPDIR says (OpenClaw 2026.9.6).
//
// The temp home usually lives under /tmp itself, so before /tmp is covered the temp home is bind-mounted
// into the folder that becomes /tmp, at the same relative path: HOME and TMPDIR keep working unchanged.
// Needs CAP_SYS_ADMIN in the current user namespace: true as root and inside `unshare -rn` (bin/hermetic.mjs).
import { join } from 'node:path';
import type { TempHome } from '../hermetic/temp-home.js';

const script = [
  'set -e',
  'dir="$0"; shadow="$dir/slash-tmp"',
  'mkdir -p "$shadow"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a JS template.
  'case "$dir" in /tmp/*) rel="${dir#/tmp/}"; mkdir -p "$shadow/$rel"; mount --bind "$dir" "$shadow/$rel";; esac',
  'mount --rbind "$shadow" /tmp',
  'exec "$@"',
].join('\n');

export function privateTmpWrapper(tempHome: TempHome): string[] {
  return ['unshare', '--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, tempHome.dir];
}

/** Where the harness's /tmp lands on the host, for tests that check what it wrote there. */
export function privateTmpDir(tempHome: TempHome): string {
  return join(tempHome.dir, 'slash-tmp');
}
