// OpenClaw (gateway WebSocket protocol v4): the adapter factory and the local-gateway launcher.
export {
  createOpenClawHarness,
  OPENCLAW_IMPLEMENTED,
  type OpenClawHarnessOptions,
  startLocalGateway,
} from './adapter.js';
export { OPENCLAW_BINARY, OPENCLAW_TESTED_VERSIONS } from './discovery.js';
