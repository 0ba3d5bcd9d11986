// Three test tiers (docs/architecture/contract.md, "Test tiers"): pure units, process-level against fake harnesses,
// and the real pinned CLIs inside a loopback-only network namespace.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));
const alias = {
  '@reins/core': src('core'),
  '@reins/harnesses': src('harnesses'),
  '@reins/testkit': src('testkit'),
  '@reins/protocol': src('protocol'),
  '@reins/client': src('client'),
  '@reins/daemon': src('daemon'),
  '@reins/bridges': src('bridges'),
};
const slowTiers = ['**/*.process.test.ts', '**/*.real.test.ts'];
// Checkpoints are on by default in a git work tree, and many tests run sessions in this repository's
// own checkout: off unless a test asks for them (spec.checkpoints: true), so they neither write refs
// here nor change other tests' event sequences (docs/architecture/contract.md, "Checkpoints").
process.env.REINS_CHECKPOINTS ??= 'off';

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...slowTiers],
          // Corpus and fuzz tests take a few seconds of CPU; on 2 busy cores vitest's 5 s default
          // timed one out (a bridges corpus check at 6.6 s). Not a timing assert: a hang still fails.
          testTimeout: 20_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'process',
          include: ['packages/*/src/**/*.process.test.ts', 'packages/*/test/**/*.process.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'real',
          include: ['packages/*/src/**/*.real.test.ts', 'packages/*/test/**/*.real.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
