// The seeded fuzzer: a mutation engine over recorded native frames, the checks a fuzzed translation must
// pass, and the case loop with its report. See docs/architecture/testing.md.
export * from './check.js';
export * from './corpus.js';
export * from './mutate.js';
export * from './random.js';
export * from './run.js';
export * from './wire-enums.js';
