#!/usr/bin/env node
// Runs a command inside a fresh network namespace whose only interface is loopback (docs/harnesses/hermetic.md).
// Usage: node packages/testkit/bin/hermetic.mjs -- CMD [ARGS...]
//
// Everything the command starts (the vitest real tier, the scripted model server, every harness CLI) shares
// that namespace, so a connection to anything but 127.0.0.1 / ::1 fails at once with ENETUNREACH: a leak
// becomes a visible test failure instead of traffic. When the namespace cannot be made this script says why
// and exits non-zero; it never runs the command on the open network.
//
// Plain Node ESM with no dependencies so that it runs before anything is built.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const EXIT_USAGE = 2;
const EXIT_NO_NAMESPACE = 3;

function fail(code, message) {
  process.stderr.write(`hermetic: ${message}\n`);
  process.exit(code);
}

/** First executable named `name` on PATH or in the sbin folders (ip lives in /usr/sbin, often off a user's PATH). */
function findTool(name) {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/bin', '/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

const separator = process.argv.indexOf('--', 2);
const command = separator === -1 ? process.argv.slice(2) : process.argv.slice(separator + 1);
if (command.length === 0) fail(EXIT_USAGE, 'usage: node packages/testkit/bin/hermetic.mjs -- CMD [ARGS...]');

if (process.platform !== 'linux') {
  fail(
    EXIT_NO_NAMESPACE,
    `network namespaces need Linux (this is ${process.platform}); refusing to run on the open network`,
  );
}
const unshare = findTool('unshare');
const ip = findTool('ip');
if (!unshare) fail(EXIT_NO_NAMESPACE, "'unshare' (util-linux) was not found; refusing to run on the open network");
if (!ip) fail(EXIT_NO_NAMESPACE, "'ip' (iproute2) was not found; refusing to run on the open network");

// Root may make a bare network namespace; anyone else needs a user namespace too (-r maps them to root in it).
const isRoot = process.getuid?.() === 0;
const unshareFlags = isRoot ? ['--net'] : ['--map-root-user', '--net'];

// Probe once so that a refusal comes with a reason rather than a bare "Operation not permitted" from deep inside.
const probe = spawnSync(unshare, [...unshareFlags, ip, 'link', 'set', 'lo', 'up'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  const detail = (probe.error?.message ?? probe.stderr ?? '').trim() || `exit ${probe.status}`;
  fail(
    EXIT_NO_NAMESPACE,
    `cannot create a loopback-only network namespace (${detail}).\n` +
      `  Needs ${isRoot ? 'CAP_SYS_ADMIN' : 'unprivileged user namespaces (user.max_user_namespaces > 0, kernel.unprivileged_userns_clone=1)'}.\n` +
      '  The real-CLI tier refuses to run without it; it never falls back to the open network.',
  );
}

// Inside: bring lo up, insist that lo is the only link (a namespace that somehow inherited an interface is
// not hermetic), then exec the command so that signals and the exit status are the command's own.
const trampoline =
  'ip="$0"; "$ip" link set lo up || exit 97; ' +
  'links=$("$ip" -o link show | wc -l); ' +
  'if [ "$links" != 1 ]; then echo "hermetic: namespace has $links links, expected only lo" >&2; exit 97; fi; ' +
  'exec "$@"';
// The command gets a process group of its own, and signals go to that whole group: wrappers such as
// `npx` do not pass SIGTERM on, and a vitest left behind by an exited npx was seen orphaned.
const child = spawn(unshare, [...unshareFlags, '/bin/sh', '-c', trampoline, ip, ...command], {
  stdio: 'inherit',
  env: { ...process.env, REINS_HERMETIC: '1' },
  detached: true,
});

function signalGroup(signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already empty.
  }
}

// Forward the signals a terminal, CI runner or parent test would send; the command decides how to die.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];
const forward = (signal) => signalGroup(signal);
for (const signal of forwarded) process.on(signal, forward);

child.on('error', (error) => fail(EXIT_NO_NAMESPACE, `could not start ${unshare}: ${error.message}`));
child.on('exit', (code, signal) => {
  for (const name of forwarded) process.off(name, forward);
  // Whatever the command left running in its group would outlive us as an orphan: end it.
  signalGroup('SIGKILL');
  if (signal) {
    // Die of the same signal so that our parent sees what really happened (exit 128+n for shells).
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
