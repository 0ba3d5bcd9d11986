// @reins/bridges: stdio bridges that speak ACP (and later the Codex app-server protocol) outward.
export {};
