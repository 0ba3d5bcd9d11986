// @reins/testkit: what tests, benchmarks and the demo use to drive real harness CLIs hermetically.

export * from './browser-safe.js';
export * from './conformance/index.js';
export * from './fuzz/index.js';
export * from './harness-homes/index.js';
export * from './hermetic/index.js';
export * from './model-server/index.js';
export * from './recorder/index.js';
