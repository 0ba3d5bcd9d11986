// @reins/client: the browser-safe client of the Reins daemon (WebSocket), no Node imports.
export { type AttachOptions, type ConnectOptions, connect, ReinsClient } from './client.js';
export * from './harness-protocol.js';
export * from './protocol.js';
export { RemoteSession } from './remote-session.js';
export { connectionClosed, type WebSocketConstructor, type WebSocketLike } from './rpc-channel.js';
