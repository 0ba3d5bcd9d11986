// Each package's public surface is on purpose: its src/index.ts names what it publishes (no
// `export *`), and its runtime exports are checked in as packages/<pkg>/api.txt, so a change to the
// surface shows in review. After a deliberate change: REINS_UPDATE_API=1 and run this file again.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packages = fileURLToPath(new URL('../../', import.meta.url));
/** The library packages (the CLI's surface is the `reins` command; the console is an app). */
const LIBRARIES = {
  core: () => import('@reins/core'),
  protocol: () => import('@reins/protocol'),
  client: () => import('@reins/client'),
  harnesses: () => import('@reins/harnesses'),
  testkit: () => import('@reins/testkit'),
  daemon: () => import('@reins/daemon'),
  bridges: () => import('@reins/bridges'),
} as const;
const HEADER = '# Runtime exports of @reins/%s, one a line (packages/harnesses/src/public-api.test.ts).';

function checkedIn(pkg: string): string[] {
  const path = join(packages, pkg, 'api.txt');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'));
}

describe('public API', () => {
  it.each(Object.keys(LIBRARIES))('@reins/%s names its exports in src/index.ts (no export *)', (pkg) => {
    const index = readFileSync(join(packages, pkg, 'src', 'index.ts'), 'utf8');
    expect(index.match(/^export \*.*$/gm) ?? []).toEqual([]);
  });

  it.each(Object.entries(LIBRARIES))(
    '@reins/%s exports at run time exactly what its api.txt lists',
    async (pkg, load) => {
      const names = Object.keys(await load()).sort();
      if (process.env.REINS_UPDATE_API === '1') {
        writeFileSync(join(packages, pkg, 'api.txt'), `${[HEADER.replace('%s', pkg), ...names].join('\n')}\n`);
      }
      expect(names).toEqual(checkedIn(pkg));
    },
  );

  it('keeps the event guard internals out of core', async () => {
    const core = await import('@reins/core');
    expect(Object.keys(core)).not.toEqual(expect.arrayContaining(['truncateDeep']));
    expect(Object.keys(core)).not.toContain('replacementPayload');
  });
});
