// The Debian packages the test tiers need beyond npm, where each is looked for, and which tests need it:
// one list for the set-up step (scripts/setup.mjs) and the test command (scripts/test.mjs).
import { accessSync, constants } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';

/** `tests` are vitest file globs run only when the package is present; `env` points those tests at it. */
export const SYSTEM_PACKAGES = [
  {
    name: 'nats-server',
    binary: 'nats-server',
    env: 'REINS_NATS_SERVER',
    why: 'the cluster tests start their own NATS JetStream server',
    tests: ['packages/daemon/test/cluster/**'],
  },
  {
    name: 'chromium',
    binary: 'chromium',
    env: 'REINS_CHROMIUM',
    why: "the console's browser tests drive Chromium through playwright-core",
    tests: ['packages/console/test/**/*.real.test.ts', 'packages/cli/test/console-demo.real.test.ts'],
  },
  {
    name: 'bubblewrap',
    binary: 'bwrap',
    why: "the workspace posture: Claude Code's Linux sandbox runs tools under bwrap, and Reins confines the other harnesses with it",
    tests: [
      'packages/harnesses/src/claude-code/workspace.real.test.ts',
      'packages/harnesses/src/runtime/confinement.process.test.ts',
      'packages/harnesses/src/runtime/confinement.real.test.ts',
    ],
  },
  {
    name: 'socat',
    binary: 'socat',
    why: "Claude Code's Linux sandbox relays its network proxy through socat (the workspace posture)",
    tests: ['packages/harnesses/src/claude-code/workspace.real.test.ts'],
  },
  {
    name: 'tmux',
    binary: 'tmux',
    why: '`reins chat` is tested in a real terminal under tmux',
    tests: ['packages/cli/test/chat.real.test.ts'],
  },
];

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `binary` on PATH, or undefined. */
export function onPath(binary, env = process.env) {
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  return dirs.map((dir) => join(dir, binary)).find(executable);
}

/**
 * Where the package's binary is, or undefined: its env override, then PATH, then the sbin folder beside each
 * PATH bin folder (Debian installs nats-server in /usr/sbin, which a user's PATH often lacks).
 */
export function locate(pkg, env = process.env) {
  const override = pkg.env ? env[pkg.env] : undefined;
  if (override) return executable(override) ? override : undefined;
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  const sbins = dirs.filter((dir) => basename(dir) === 'bin').map((dir) => join(dirname(dir), 'sbin'));
  for (const dir of [...dirs, ...sbins]) {
    const candidate = join(dir, pkg.binary);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}
