// @reins/client: the browser-safe client of the Reins daemon (WebSocket), no Node imports.
export {};
