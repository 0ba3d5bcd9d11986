// @reins/harnesses: one adapter per harness over a shared runtime (processes, framing, JSON-RPC).
export * from './registry.js';
export * from './runtime/index.js';
