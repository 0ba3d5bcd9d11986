// A command prefix that runs a harness in its own mount namespace whose /tmp is a folder of the test's temp
// home, for harnesses that write fixed /tmp paths whatever TMPDIR says (OpenClaw 2026.9.6).
//
// The temp home usually lives under /tmp itself, and so may the checkout (CI clones anywhere, /tmp
// included) and the session's working directory: before /tmp is covered, the temp home, harness-clis/,
// the wrapped command's own working directory and any `keep` folders are bind-mounted into the folder
// that becomes /tmp at the same relative path, so HOME, TMPDIR, the binaries and the workspace keep
// working unchanged. The working directory is kept whatever the caller passes: OpenClaw 2026.9.6 spawns
// its tools with `cwd` set to the session's path, and a path hidden by the new /tmp fails that spawn
// with "spawn <node> ENOENT" (the gateway then exits 78), which is how `reins demo` broke.
// Needs CAP_SYS_ADMIN in the current user namespace: true as root and inside `unshare -rn` (bin/hermetic.mjs).
import { join } from 'node:path';
import { harnessClisDir } from '../hermetic/binaries.js';
import type { TempHome } from '../hermetic/temp-home.js';

// $0: the temp home (its slash-tmp becomes /tmp); $1: more folders to keep visible, colon-separated.
// The working directory is taken physically (`pwd -P`): PWD may be a stale value inherited from the parent.
const script = [
  'set -e',
  'dir="$0"; shadow="$dir/slash-tmp"; keep="$1"; shift',
  'mkdir -p "$shadow"',
  'keep_visible() {',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a JS template.
  '  case "$1" in /tmp/*) rel="${1#/tmp/}"; mkdir -p "$shadow/$rel"; mount --bind "$1" "$shadow/$rel";; esac',
  '}',
  'IFS=:',
  'for path in $dir $keep; do keep_visible "$path"; done',
  'unset IFS',
  'keep_visible "$(pwd -P)"',
  'mount --rbind "$shadow" /tmp',
  'exec "$@"',
].join('\n');

export function privateTmpWrapper(tempHome: Pick<TempHome, 'dir'>, keep: string[] = [harnessClisDir()]): string[] {
  return [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    script,
    tempHome.dir,
    keep.join(':'),
  ];
}

/** Where the harness's /tmp lands on the host, for tests that check what it wrote there. */
export function privateTmpDir(tempHome: Pick<TempHome, 'dir'>): string {
  return join(tempHome.dir, 'slash-tmp');
}
