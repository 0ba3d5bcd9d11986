// @reins/harnesses: one adapter per harness over a shared runtime (processes, framing, JSON-RPC).

// The Codex app-server wire types (generated from the pinned Codex), for the Codex app-server bridge.
export type * as CodexAppServerWire from './codex/wire/generated/index.js';
export * from './registry.js';
export * from './runtime/index.js';
