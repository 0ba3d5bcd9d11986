export * from './codex-strict.js';
export * from './validate.js';
