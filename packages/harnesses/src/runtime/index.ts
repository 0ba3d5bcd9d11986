export * from './child-process.js';
export * from './discovery.js';
export * from './json-rpc.js';
export * from './lines.js';
export * from './options.js';
export * from './ring.js';
