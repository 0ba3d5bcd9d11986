// The Codex app-server bridge's servers, loaded by `reins bridge codex-app-server` only.
export { runCodexExec, serveBlocksStdio, serveCodexAppServerSocket, serveCodexAppServerStdio } from '@reins/bridges';
