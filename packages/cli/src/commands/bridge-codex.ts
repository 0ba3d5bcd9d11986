// The Codex app-server bridge's stdio servers, loaded by `reins bridge codex-app-server` only (the
// socket server, with node:http and ws, is bridge-codex-socket.ts: a stdio bridge never loads it).
export { runCodexExec, serveBlocksStdio, serveCodexAppServerStdio } from '@reins/bridges';
