// The Codex app-server bridge's socket server (`--listen ws:// | unix://`), loaded only for it.
export { serveCodexAppServerSocket } from '@reins/bridges';
