// The Codex adapter (`codex app-server`), by concern: connection.ts (the app-server child and its
// JSON-RPC framing), session.ts (the session on the chassis: threads, turns, steer, interrupt),
// turns.ts (Codex's native turn ids), approvals.ts (permission requests), thread-params.ts (spec and
// input as Codex's wire forms), harness.ts (discovery, health, catalog, history, createSession);
// translate.ts maps native frames to events. This module names what the rest of Reins uses.
export { CODEX_IMPLEMENTED, type CodexHarnessOptions, createCodexHarness } from './harness.js';
export { CODEX_SPEC_SUPPORT } from './thread-params.js';
