// Every workspace package as it would be published: publint on each (exports, main and types point at
// files the build made, the package type agrees with them). Run after `npm run build`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const root = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
let failed = 0;
for (const workspace of root.workspaces) {
  try {
    const out = execFileSync('npx', ['--no-install', 'publint', workspace, '--strict'], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    if (!/All good/.test(out)) process.stdout.write(out);
  } catch (error) {
    failed++;
    process.stdout.write(`${workspace}:\n${error.stdout ?? ''}${error.stderr ?? ''}\n`);
  }
}
console.log(
  failed === 0 ? `publint: ${root.workspaces.length} packages, all good` : `publint: ${failed} package(s) with errors`,
);
process.exit(failed === 0 ? 0 : 1);
