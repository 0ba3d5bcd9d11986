export * from './behaviours.js';
export * from './invariants.js';
export * from './processes.js';
export * from './recorder.js';
export * from './suite.js';
export * from './target.js';
export * from './targets.js';
