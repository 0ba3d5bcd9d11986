// The WebSocket server of `--listen ws:// | unix://`, alone in its module so that the CLI's bundle loads
// ws only when a bridge listens on a socket (packages/cli/scripts/bundle.mjs, LAZY_MODULES): functions
// only, and nothing of the bridges' own imported at run time.
import { type ServerOptions, WebSocketServer } from 'ws';

export function webSocketServer(options: ServerOptions): WebSocketServer {
  return new WebSocketServer(options);
}
