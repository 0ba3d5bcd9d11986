// acp-check: Reins' own ACP conformance kit (docs/architecture/acp.md, "acp-check").
export type { AgentTransport } from './peer.js';
export {
  type AcpCheckReport,
  REQUIREMENTS,
  type RequirementResult,
  renderReport,
  type Tier,
  type Verdict,
  verdictOf,
} from './report.js';
export { type AcpCheckOptions, runAcpCheck } from './run.js';
export { type StdioAgentOptions, stdioAgent } from './stdio.js';
