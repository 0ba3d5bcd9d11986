// The ACP bridge's server, loaded by `reins bridge acp` only (it brings the ACP SDK and its schemas).
export { serveAcpStdio } from '@reins/bridges';
