// `npm run setup`: everything the README's commands need beyond `npm ci`: the Debian packages the test tiers
// use (where missing; apt-get as root, through sudo otherwise) and the pinned harness CLIs in harness-clis/.
// Says what it does and why, a line per step; what it cannot install it names, and goes on. The two installs
// run side by side (apt-get is mostly download and unpack, npm ci mostly download): on a fresh CI machine
// that saves the shorter of the two.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { locate, onPath, SYSTEM_PACKAGES } from './lib/system-packages.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (line) => console.log(`setup: ${line}`);

/**
 * Runs a command with its output shown, resolving true when it exited 0; with `what`, a line every 30 s
 * while it works (npm ci prints nothing for minutes).
 */
function run(command, args, { env = process.env, what } = {}) {
  const started = Date.now();
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
  const heartbeat =
    what && setInterval(() => say(`  ${what}: still working (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
  return new Promise((resolve) => {
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  }).finally(() => clearInterval(heartbeat));
}

/** apt-get as root, or through sudo; undefined when neither can be used here. */
function aptGet() {
  if (!onPath('apt-get')) return undefined;
  const asRoot = process.getuid?.() === 0;
  if (!asRoot && !onPath('sudo')) return undefined;
  const what = 'apt-get';
  return (args) =>
    asRoot
      ? run('apt-get', args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, what })
      : run('sudo', ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], { what });
}

async function installSystemPackages() {
  say(`[1/2] Debian packages the tests need: ${SYSTEM_PACKAGES.map((pkg) => pkg.name).join(', ')}`);
  const missing = SYSTEM_PACKAGES.filter((pkg) => {
    const where = locate(pkg);
    say(where ? `  ${pkg.name}: found at ${where}` : `  ${pkg.name}: missing (${pkg.why})`);
    return !where;
  });
  if (missing.length === 0) return [];
  const names = missing.map((pkg) => pkg.name);
  const apt = aptGet();
  if (!apt) {
    say('  cannot install here (needs apt-get, run as root or with sudo)');
  } else {
    say(`  installing with apt-get: ${names.join(' ')} (apt-get update first; this can take a few minutes)`);
    const installed = (await apt(['update', '-qq'])) && (await apt(['install', '-y', '-qq', ...names]));
    if (!installed) say('  apt-get failed (see above)');
  }
  const still = missing.filter((pkg) => !locate(pkg));
  for (const pkg of missing) if (!still.includes(pkg)) say(`  ${pkg.name}: installed at ${locate(pkg)}`);
  for (const pkg of still) {
    say(`  NOT INSTALLED: ${pkg.name}; install it yourself (e.g. sudo apt-get install ${pkg.name}): ${pkg.why}`);
  }
  return still;
}

async function installHarnessClis() {
  say('[2/2] pinned harness CLIs into harness-clis/ (npm ci, about 3.7 GB; the real-CLI tests and the demo use them)');
  const ok = await run('npm', ['ci', '--prefix', 'harness-clis', '--no-audit', '--no-fund'], { what: 'npm ci' });
  say(ok ? '  harness CLIs installed' : '  npm ci in harness-clis/ failed (see above)');
  return ok;
}

const [notInstalled, harnesses] = await Promise.all([installSystemPackages(), installHarnessClis()]);
if (notInstalled.length > 0) {
  say(`done, without ${notInstalled.map((pkg) => pkg.name).join(', ')}: \`npm test\` skips the tests that need them`);
} else if (harnesses) {
  say('done: everything the README commands need is installed');
}
process.exit(harnesses ? 0 : 1);
