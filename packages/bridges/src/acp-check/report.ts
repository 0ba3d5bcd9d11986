// acp-check's requirements, tiers and verdict, pure: what a run found becomes a report (JSON) and a table.
// The requirements are written from the ACP spec and the SDK's JSON schemas (docs/architecture/acp.md,
// "acp-check").

export type Tier = 'MANDATORY' | 'CAPABILITY' | 'ADVISORY';
export type Status = 'pass' | 'fail' | 'skip';

export interface Requirement {
  id: string;
  tier: Tier;
  /** What the spec asks, in one sentence. */
  title: string;
}

export const REQUIREMENTS: readonly Requirement[] = [
  { id: 'initialize', tier: 'MANDATORY', title: 'initialize answers the requested version when supported' },
  { id: 'initialize-newer-client', tier: 'MANDATORY', title: 'a newer client version gets the latest supported' },
  { id: 'session-new', tier: 'MANDATORY', title: 'session/new answers a sessionId' },
  { id: 'prompt-turn', tier: 'MANDATORY', title: 'a prompt turn ends with a stopReason' },
  { id: 'cancel', tier: 'MANDATORY', title: 'session/cancel ends the running turn with stopReason cancelled' },
  { id: 'unknown-method', tier: 'MANDATORY', title: 'an unknown method is answered with error -32601' },
  { id: 'stdio-framing', tier: 'MANDATORY', title: 'stdout carries one JSON-RPC 2.0 message per line' },
  { id: 'schema', tier: 'MANDATORY', title: 'every message validates against the ACP JSON schema' },
  {
    id: 'updates-by-id',
    tier: 'MANDATORY',
    title: 'tool calls created once, updated when known; a message id, one role',
  },
  { id: 'v2-state-updates', tier: 'MANDATORY', title: 'v2: every prompt turn reports running before its idle' },
  { id: 'session-load', tier: 'CAPABILITY', title: 'session/load replays the history (when advertised)' },
  { id: 'session-resume', tier: 'CAPABILITY', title: 'session/resume in a new process (when advertised)' },
  { id: 'set-mode', tier: 'CAPABILITY', title: 'session/set_mode accepts an offered mode (when offered)' },
  { id: 'set-config-option', tier: 'CAPABILITY', title: 'session/set_config_option accepts an offered value' },
  {
    id: 'unadvertised-methods',
    tier: 'CAPABILITY',
    title: 'a method whose capability is not advertised answers an error',
  },
  { id: 'v2-lifecycle', tier: 'ADVISORY', title: 'v2: the prompt ack names its user_message; running, then idle' },
  { id: 'tool-calls-end', tier: 'ADVISORY', title: 'every tool call of an ended turn has a final status by its end' },
  { id: 'meta-passthrough', tier: 'ADVISORY', title: 'a request carrying unknown _meta is served as usual' },
];

export interface RequirementResult extends Requirement {
  status: Status;
  /** Why it failed or was skipped, or what passed. */
  detail: string;
}

export type Verdict = 'CONFORMANT' | 'NOT CONFORMANT';

export interface AcpCheckReport {
  agent: { command: string[]; name?: string; version?: string };
  /** The protocol version asked for, and the one the agent answered. */
  protocol: { requested: number; negotiated?: number };
  /** The @agentclientprotocol/sdk version whose schema judged the messages. */
  schema: string;
  date: string;
  verdict: Verdict;
  results: RequirementResult[];
}

/** One result per requirement, in the list's order; a requirement the run never reached fails (mandatory) or skips. */
export function completeResults(found: Map<string, { status: Status; detail: string }>): RequirementResult[] {
  return REQUIREMENTS.map((requirement) => {
    const result = found.get(requirement.id);
    if (result) return { ...requirement, ...result };
    const status: Status = requirement.tier === 'MANDATORY' ? 'fail' : 'skip';
    return { ...requirement, status, detail: 'not reached (an earlier step failed)' };
  });
}

/** Not conformant as soon as one MANDATORY requirement failed; capability and advisory failures only inform. */
export function verdictOf(results: readonly RequirementResult[]): Verdict {
  return results.some((result) => result.tier === 'MANDATORY' && result.status === 'fail')
    ? 'NOT CONFORMANT'
    : 'CONFORMANT';
}

/** The human table: one line per requirement, then the verdict. */
export function renderReport(report: AcpCheckReport): string {
  const agent = [report.agent.name, report.agent.version].filter(Boolean).join(' ') || report.agent.command.join(' ');
  const lines = [
    `ACP check of ${agent} (protocol ${report.protocol.requested}, answered ${report.protocol.negotiated ?? '-'};` +
      ` schema of @agentclientprotocol/sdk ${report.schema})`,
    '',
    `${'STATUS'.padEnd(6)}  ${'TIER'.padEnd(10)}  ${'REQUIREMENT'.padEnd(23)}  DETAIL`,
  ];
  for (const result of report.results) {
    lines.push(
      `${result.status.toUpperCase().padEnd(6)}  ${result.tier.padEnd(10)}  ${result.id.padEnd(23)}  ${result.detail}`,
    );
  }
  const failed = report.results.filter((result) => result.tier === 'MANDATORY' && result.status === 'fail');
  lines.push('', `Verdict: ${report.verdict}${failed.length ? ` (${failed.map((r) => r.id).join(', ')})` : ''}`);
  return lines.join('\n');
}
