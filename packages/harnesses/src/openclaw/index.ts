// OpenClaw (gateway WebSocket protocol v4): the adapter factory and the local-gateway launcher.
export {
  createOpenClawHarness,
  OPENCLAW_BINARY,
  OPENCLAW_IMPLEMENTED,
  OPENCLAW_TESTED_VERSIONS,
  type OpenClawHarnessOptions,
  startLocalGateway,
} from './adapter.js';
