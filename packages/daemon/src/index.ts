// @reins/daemon: the local Reins daemon, sessions over WebSocket.
export {};
