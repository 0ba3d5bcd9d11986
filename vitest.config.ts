// Three test tiers (docs/architecture/contract.md, "Test tiers"): pure units, process-level against fake harnesses,
// and the real pinned CLIs inside a loopback-only network namespace.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

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

// The real tier's longest files (each conformance lane group and the ACP presets' table: minutes of CLI
// start-ups; OpenClaw's gateway starts in 15-40 s) start first, so the two workers finish together. Vitest
// orders by the last run's durations, but a fresh checkout (CI) has none and would take these files last.
const LONGEST_FIRST = [/conformance-acp/, /conformance-openclaw/, /presets\.real/, /conformance-/, /openclaw/];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((pattern) => pattern.test(file.moduleId));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    // The real tier retries a failed test once (below); this names every test that passed only so.
    reporters: ['default', './scripts/lib/retried-tests-reporter.mjs'],
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
          // Two files at a time (vitest's default on 2 cores is one): the tier is mostly module imports,
          // and two workers keep both cores busy (130 s against 218 s for the tier, one after the other).
          maxWorkers: 2,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'process',
          include: ['packages/*/src/**/*.process.test.ts', 'packages/*/test/**/*.process.test.ts'],
          testTimeout: 30_000,
          // Two files at a time: vitest's default on 2 cores is one worker (cores - 1), and a process test
          // mostly waits on the fakes it spawns and their exits, as a real test does. Every file has its own
          // temp homes, stores and ports.
          maxWorkers: 2,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'real',
          include: ['packages/*/src/**/*.real.test.ts', 'packages/*/test/**/*.real.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Two files at a time: a real test mostly waits (CLI start-up, the scripted model's turns, process
          // exits), so two side by side nearly halve the tier on 2 cores; every file has its own homes, model
          // server and ports, and process checks are scoped to a test's own children or markers.
          maxWorkers: 2,
          // Tests a file marks concurrent (the OpenClaw conformance lane) run at most three at a time.
          maxConcurrency: 3,
          // Once more after a failure: these tests drive third-party CLIs and a browser whose timing under
          // a loaded machine no test controls (a title written after close, a session found or not). A test
          // that passes only on its retry is named with its first failure at the end of the run
          // (scripts/lib/retried-tests-reporter.mjs); one that fails twice fails the run.
          retry: 1,
        },
      },
    ],
  },
});
