export * from './classify.js';
export * from './rules.js';
