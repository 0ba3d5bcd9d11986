// `npm test`: builds, then runs every test tier (unit, process, real) even when one fails, so one red tier never
// hides the others' results; tests needing a Debian package that is missing (scripts/lib/system-packages.mjs) are
// left out with a line saying so. Exits non-zero when anything failed, or, with CI=true, when anything was left out.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { locate, SYSTEM_PACKAGES } from './lib/system-packages.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (line) => console.log(`\ntest: ${line}`);

const env = { ...process.env };
const missing = [];
for (const pkg of SYSTEM_PACKAGES) {
  const where = locate(pkg);
  if (!where) missing.push(pkg);
  else if (pkg.env) env[pkg.env] = where; // the tests then use exactly the binary found here
}
const excluded = missing.flatMap((pkg) => pkg.tests.flatMap((glob) => ['--exclude', glob]));

function run(name, command, args) {
  say(`${name}: ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  const ok = result.status === 0;
  say(`${name}: ${ok ? 'passed' : `FAILED (exit ${result.status ?? result.signal})`}`);
  return { name, ok };
}

if (!run('build', 'npm', ['run', 'build']).ok) {
  say('the build failed, so no tier can run');
  process.exit(1);
}
const vitest = ['vitest', 'run', '--passWithNoTests'];
const results = [
  run('packages', 'npm', ['run', 'check:packages']),
  run('unit tier', 'npx', [...vitest, '--project', 'unit']),
  run('process tier', 'npx', [...vitest, '--project', 'process', ...excluded]),
  run('real tier', 'node', [
    'packages/testkit/bin/hermetic.mjs',
    '--',
    'npx',
    ...vitest,
    '--project',
    'real',
    ...excluded,
  ]),
];

const failed = results.filter((result) => !result.ok).map((result) => result.name);
say(`summary: ${results.map((result) => `${result.name} ${result.ok ? 'passed' : 'FAILED'}`).join(' · ')}`);
const leftOut = missing.filter((pkg) => pkg.tests.length > 0);
if (leftOut.length > 0) {
  const lines = leftOut.map((pkg) => `${pkg.tests.join(', ')} (needs ${pkg.name}: ${pkg.why})`);
  say(`NOT RUN for a missing package (npm run setup installs it): ${lines.join('; ')}`);
}
const ciMissing = process.env.CI === 'true' && missing.length > 0;
if (ciMissing) say(`CI=true and ${missing.map((pkg) => pkg.name).join(', ')} missing: on CI nothing may be skipped`);
process.exit(failed.length > 0 || ciMissing ? 1 : 0);
