// acp-check's drive: one agent (and two short fresh ones, for a newer client and a resume in a new
// process) taken through the requirements in report.ts, in the order a client meets them. What each
// requirement asks is written from the spec (docs/architecture/acp.md, "acp-check").
import { AgentPeer, type AgentTransport, type Answer, TimeoutError } from './peer.js';
import { type AcpCheckReport, completeResults, REQUIREMENTS, type Status, verdictOf } from './report.js';
import { acpSchema, sdkVersion, type WireMessage } from './schema.js';
import { judgeStateAroundPrompts, judgeToolCallsEnd, judgeUpdatesById, type TurnRecord } from './updates.js';

export interface AcpCheckOptions {
  /** Starts one agent process (called up to three times). */
  start: () => AgentTransport;
  command: string[];
  protocol: 1 | 2;
  /** The sessions' working directory (absolute). */
  cwd: string;
  /** Deadline of each request and of each turn. */
  timeoutMs?: number;
  /** How long a prompt runs before acp-check cancels it. */
  cancelAfterMs?: number;
  /** The prompt the cancel races (an agent's scripted model may hold a turn open only for its own words). */
  cancelPrompt?: string;
}

export const DEFAULT_CANCEL_PROMPT = 'Count slowly from 1 to 100.';

const CLIENT = { name: 'reins-acp-check', version: '1' };
/** A method no ACP version defines and that is no extension method (no leading underscore). */
const UNKNOWN_METHOD = 'acp-check/no_such_method';

/** The updates that carry a message of the conversation (v1 chunks, v2 upserts and chunks). */
const MESSAGE_UPDATES = new Set(['user_message', 'user_message_chunk', 'agent_message', 'agent_message_chunk']);

type Turn = { stopReason?: string; error?: string };
type Found = Map<string, { status: Status; detail: string }>;

export async function runAcpCheck(options: AcpCheckOptions): Promise<AcpCheckReport> {
  const schema = acpSchema(options.protocol);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const found: Found = new Map();
  const peers: AgentPeer[] = [];
  const open = () => {
    const peer = new AgentPeer(options.start(), schema, timeoutMs);
    peers.push(peer);
    return peer;
  };
  const report: AcpCheckReport = {
    agent: { command: options.command },
    protocol: { requested: options.protocol },
    schema: sdkVersion(),
    date: new Date().toISOString(),
    verdict: 'NOT CONFORMANT',
    results: [],
  };
  const check = new Check(options, found, report, open);
  try {
    await check.main(open());
    await check.newerClient(open());
  } finally {
    await Promise.all(peers.map((peer) => peer.close()));
  }
  const framing = peers.flatMap((peer) => peer.framingErrors);
  found.set(
    'stdio-framing',
    outcome(framing.length === 0, `${framing.length} bad line(s): ${framing[0]}`, 'every line'),
  );
  const invalid = peers.flatMap((peer) => peer.schemaErrors);
  const total = peers.reduce((sum, peer) => sum + peer.received.length, 0);
  found.set('schema', outcome(invalid.length === 0, `${invalid.length} invalid: ${invalid[0]}`, `${total} messages`));
  report.results = completeResults(found);
  report.verdict = verdictOf(report.results);
  return report;
}

const outcome = (passed: boolean, failure: string, success: string) =>
  passed ? { status: 'pass' as const, detail: success } : { status: 'fail' as const, detail: failure };

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The steps, each recording its requirements' results; a failed MANDATORY step ends the main run. */
class Check {
  private sessionId = '';
  private newSession: Record<string, unknown> = {};
  private capabilities: Record<string, unknown> = {};
  /** The prompt turns that ended, with the main session's updates in each. */
  private readonly turns: TurnRecord[] = [];

  constructor(
    private readonly options: AcpCheckOptions,
    private readonly found: Found,
    private readonly report: AcpCheckReport,
    private readonly open: () => AgentPeer,
  ) {}

  private set(id: string, status: Status, detail: string): void {
    if (!REQUIREMENTS.some((requirement) => requirement.id === id)) throw new Error(`no requirement ${id}`);
    this.found.set(id, { status, detail });
  }

  private initializeParams(version: number): Record<string, unknown> {
    if (this.options.protocol === 2) return { protocolVersion: version, info: CLIENT };
    const clientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };
    return { protocolVersion: version, clientCapabilities, clientInfo: CLIENT };
  }

  async main(peer: AgentPeer): Promise<void> {
    const requested = this.options.protocol;
    const init = await this.attempt('initialize', () => peer.request('initialize', this.initializeParams(requested)));
    if (!init) return;
    const answer = (init.result ?? {}) as Record<string, unknown>;
    const info = (answer.info ?? answer.agentInfo) as { name?: string; version?: string } | undefined;
    if (info?.name) this.report.agent.name = info.name;
    if (info?.version) this.report.agent.version = info.version;
    this.report.protocol.negotiated = answer.protocolVersion as number;
    this.capabilities = ((answer.capabilities ?? answer.agentCapabilities) as Record<string, unknown>) ?? {};
    if (answer.protocolVersion !== requested) {
      this.set('initialize', 'fail', `asked for v${requested}, answered ${JSON.stringify(answer.protocolVersion)}`);
      return;
    }
    this.set('initialize', 'pass', `v${requested}`);

    const unknown = await this.attempt('unknown-method', () => peer.request(UNKNOWN_METHOD, {}));
    if (unknown) {
      const code = unknown.error?.code;
      this.set('unknown-method', code === -32601 ? 'pass' : 'fail', `answered ${code ?? 'a result'}`);
    }

    const created = await this.attempt('session-new', () => peer.request('session/new', this.newSessionParams()));
    if (!created) return;
    this.newSession = (created.result ?? {}) as Record<string, unknown>;
    this.sessionId = String(this.newSession.sessionId ?? '');
    if (!this.sessionId) {
      this.set('session-new', 'fail', 'the answer has no sessionId');
      return;
    }
    this.set('session-new', 'pass', this.sessionId);

    const from = peer.received.length;
    const turn = await this.turn(peer, 'Say hello in one word.');
    if (turn.stopReason) this.set('prompt-turn', 'pass', `stopReason ${turn.stopReason}`);
    else return this.set('prompt-turn', 'fail', turn.error ?? 'no stopReason');
    this.lifecycle(peer.received.slice(from));

    await this.cancel(peer);
    await this.setMode(peer);
    await this.setConfigOption(peer);
    const spare = await this.metaPassthrough(peer);
    await this.unadvertisedMethods(peer, spare);
    this.judgeUpdates(peer);
    await peer.close();
    await this.reopen();
  }

  private newSessionParams(): Record<string, unknown> {
    return { cwd: this.options.cwd, mcpServers: [] };
  }

  /** A request whose error or missing answer fails `id`; the answer when there was one without error. */
  private async attempt(id: string, send: () => Promise<Answer>): Promise<Answer | undefined> {
    try {
      const answer = await send();
      if (answer.error && id !== 'unknown-method') {
        this.set(id, 'fail', `error ${answer.error.code}: ${answer.error.message}`);
        return undefined;
      }
      return answer;
    } catch (error) {
      this.set(id, 'fail', reason(error));
      return undefined;
    }
  }

  /** One prompt to its end: v1's answer carries the stopReason, v2's answer only acknowledges and an idle state_update ends it. */
  private async turn(peer: AgentPeer, text: string, cancelAfterMs?: number): Promise<Turn & { cancelled?: boolean }> {
    const from = peer.received.length;
    const id = peer.start('session/prompt', { sessionId: this.sessionId, prompt: [{ type: 'text', text }] });
    const ended = () => this.turnEnd(peer, id, from);
    let cancelled = false;
    try {
      if (cancelAfterMs !== undefined) {
        await peer
          .until(() => (ended() ? true : undefined), 'end', cancelAfterMs)
          .catch((error: unknown) => {
            if (!(error instanceof TimeoutError)) throw error;
          });
        if (!ended()) {
          peer.notify('session/cancel', { sessionId: this.sessionId });
          cancelled = true;
        }
      }
      const end = await peer.until(ended, 'end of the prompt turn');
      const updates = peer.received.slice(from).map((m) => updateOf(m, this.sessionId));
      this.turns.push({ updates: updates.filter((u) => u !== undefined), stopReason: end.stopReason, cancelled });
      return { ...end, cancelled };
    } catch (error) {
      return { error: reason(error), cancelled };
    }
  }

  private turnEnd(peer: AgentPeer, id: number, from: number): Turn | undefined {
    const answer = peer.received.find((m) => m.id === id && m.method === undefined) as Answer | undefined;
    if (answer?.error) return { error: `error ${answer.error.code}: ${answer.error.message}` };
    if (this.options.protocol === 1) {
      if (!answer) return undefined;
      const stopReason = (answer.result as { stopReason?: string } | undefined)?.stopReason;
      return stopReason ? { stopReason } : { error: 'the answer has no stopReason' };
    }
    const idle = peer.received
      .slice(from)
      .map((m) => updateOf(m, this.sessionId))
      .find((update) => update?.sessionUpdate === 'state_update' && update.state === 'idle');
    if (!idle) return undefined;
    return idle.stopReason ? { stopReason: String(idle.stopReason) } : { error: 'idle without a stopReason' };
  }

  /** v2: the prompt's acknowledgment names the user message it inserted, and the turn ran before it went idle. */
  private lifecycle(messages: WireMessage[]): void {
    if (this.options.protocol === 1) {
      this.set('v2-lifecycle', 'skip', 'v1 answers the prompt at its end');
      return;
    }
    const ack = messages.find((m) => m.method === undefined && (m.result as { messageId?: unknown })?.messageId);
    const messageId = (ack?.result as { messageId?: string } | undefined)?.messageId;
    const updates = messages.map((m) => updateOf(m, this.sessionId)).filter((update) => update !== undefined);
    const states = updates.filter((update) => update.sessionUpdate === 'state_update').map((update) => update.state);
    const echoed = updates.some((update) => update.sessionUpdate === 'user_message' && update.messageId === messageId);
    const ranFirst = states.indexOf('running') !== -1 && states.indexOf('running') < states.indexOf('idle');
    if (!messageId) {
      this.set('v2-lifecycle', 'fail', 'the prompt answer carries no messageId');
      return;
    }
    if (!ranFirst) {
      this.set('v2-lifecycle', 'fail', `states ${states.join(' -> ') || 'none'}`);
      return;
    }
    if (!echoed) {
      this.set('v2-lifecycle', 'fail', `no user_message update with messageId ${messageId}`);
      return;
    }
    this.set('v2-lifecycle', 'pass', `${states.join(' -> ')}, user_message ${messageId}`);
  }

  private async cancel(peer: AgentPeer): Promise<void> {
    const text = this.options.cancelPrompt ?? DEFAULT_CANCEL_PROMPT;
    const turn = await this.turn(peer, text, this.options.cancelAfterMs ?? 1_000);
    if (!turn.cancelled && turn.error) {
      this.set('cancel', 'fail', `the prompt failed: ${turn.error}`);
      return;
    }
    if (!turn.cancelled) {
      this.set('cancel', 'skip', 'the turn ended before a cancel could reach it');
      return;
    }
    if (turn.stopReason === 'cancelled') {
      this.set('cancel', 'pass', 'stopReason cancelled');
      return;
    }
    this.set('cancel', 'fail', turn.error ?? `stopReason ${turn.stopReason} after session/cancel`);
  }

  private async setMode(peer: AgentPeer): Promise<void> {
    const modes = this.newSession.modes as { currentModeId?: string } | undefined;
    if (this.options.protocol === 2 || !modes?.currentModeId) {
      this.set('set-mode', 'skip', 'no modes offered');
      return;
    }
    const params = { sessionId: this.sessionId, modeId: modes.currentModeId };
    if (await this.attempt('set-mode', () => peer.request('session/set_mode', params)))
      this.set('set-mode', 'pass', modes.currentModeId);
  }

  private async setConfigOption(peer: AgentPeer): Promise<void> {
    const options = (this.newSession.configOptions ?? []) as Record<string, unknown>[];
    const select = options.find((option) => option.type === 'select' && typeof option.currentValue === 'string');
    if (!select) {
      this.set('set-config-option', 'skip', 'no select option offered');
      return;
    }
    const configId = String(select.configId ?? select.id);
    // v2 tags a value id with `type: "id"`; v1 takes the bare value (its default variant).
    const value =
      this.options.protocol === 2 ? { type: 'id', value: select.currentValue } : { value: select.currentValue };
    const params = { sessionId: this.sessionId, configId, ...value };
    if (await this.attempt('set-config-option', () => peer.request('session/set_config_option', params)))
      this.set('set-config-option', 'pass', `${configId} = ${select.currentValue}`);
  }

  /** The session it opens (when it did) is the spare one unadvertisedMethods may spoil. */
  private async metaPassthrough(peer: AgentPeer): Promise<string | undefined> {
    const params = { ...this.newSessionParams(), _meta: { 'reins.dev/acp-check': { probe: true } } };
    const answer = await this.attempt('meta-passthrough', () => peer.request('session/new', params));
    if (!answer) return undefined;
    this.set('meta-passthrough', 'pass', 'session/new with unknown _meta answered');
    const sessionId = (answer.result as { sessionId?: unknown } | undefined)?.sessionId;
    return typeof sessionId === 'string' ? sessionId : undefined;
  }

  /** Each method whose capability the agent did not advertise, on a spare session: an error, never a result. */
  private async unadvertisedMethods(peer: AgentPeer, spare: string | undefined): Promise<void> {
    if (!spare) {
      this.set('unadvertised-methods', 'skip', 'no spare session to try them on');
      return;
    }
    const calls = unadvertisedCalls(this.options.protocol, this.capabilities, this.newSession, spare, this.options.cwd);
    if (calls.length === 0) {
      this.set('unadvertised-methods', 'skip', 'every gated method is advertised');
      return;
    }
    const succeeded: string[] = [];
    for (const [method, params] of calls) {
      try {
        if (!(await peer.request(method, params)).error) succeeded.push(method);
      } catch (error) {
        this.set('unadvertised-methods', 'fail', `${method}: ${reason(error)}`);
        return;
      }
    }
    const names = calls.map(([method]) => method).join(', ');
    if (succeeded.length > 0)
      this.set('unadvertised-methods', 'fail', `not advertised, yet answered a result: ${succeeded.join(', ')}`);
    else this.set('unadvertised-methods', 'pass', `errors for ${names}`);
  }

  /** The main session's updates on the live connection, and its turns, judged by id and by state. */
  private judgeUpdates(peer: AgentPeer): void {
    const updates = peer.received.map((m) => updateOf(m, this.sessionId)).filter((u) => u !== undefined);
    const byId = judgeUpdatesById(updates, this.options.protocol);
    this.set('updates-by-id', byId.status, byId.detail);
    const ends = judgeToolCallsEnd(this.turns);
    this.set('tool-calls-end', ends.status, ends.detail);
    if (this.options.protocol === 1) {
      this.set('v2-state-updates', 'skip', 'v1 has no state_update');
      return;
    }
    const states = judgeStateAroundPrompts(this.turns);
    this.set('v2-state-updates', states.status, states.detail);
  }

  /** Load (v1, when advertised) or resume (v1 when advertised; v2 baseline) the session in a new agent process. */
  private async reopen(): Promise<void> {
    const v2 = this.options.protocol === 2;
    const canLoad = !v2 && this.capabilities.loadSession === true;
    const sessionCapabilities = (this.capabilities.sessionCapabilities ?? this.capabilities.session ?? {}) as object;
    const canResume = v2 || 'resume' in sessionCapabilities;
    if (!canLoad) this.set('session-load', 'skip', v2 ? 'v2 has no session/load' : 'loadSession not advertised');
    if (!canResume) this.set('session-resume', 'skip', 'sessionCapabilities.resume not advertised');
    if (canLoad) await this.inNewProcess('session-load', 'session/load', { mcpServers: [] });
    if (canResume) {
      await this.inNewProcess('session-resume', 'session/resume', v2 ? { replayFrom: { type: 'start' } } : {});
    }
  }

  private async inNewProcess(id: string, method: string, extra: Record<string, unknown>): Promise<void> {
    const peer = this.open();
    try {
      const init = await this.attempt(id, () =>
        peer.request('initialize', this.initializeParams(this.options.protocol)),
      );
      if (!init) return;
      const params = { sessionId: this.sessionId, cwd: this.options.cwd, ...extra };
      const from = peer.received.length;
      const answer = await this.attempt(id, () => peer.request(method, params));
      if (!answer) return;
      const updates = peer.received.slice(from).map((m) => updateOf(m, this.sessionId));
      const replayed = updates.filter((update) => update && update.sessionUpdate !== 'state_update').length;
      const idle = updates.some((update) => update?.sessionUpdate === 'state_update' && update.state === 'idle');
      if (method === 'session/load' || this.options.protocol === 2) {
        if (replayed === 0) {
          this.set(id, 'fail', 'answered without replaying the conversation');
          return;
        }
        // The conversation's messages, not only state or command lists (which a fresh session sends too).
        const messages = updates.filter((u) => MESSAGE_UPDATES.has(String(u?.sessionUpdate))).length;
        if (messages === 0) {
          this.set(id, 'fail', `replayed ${replayed} update(s), none of them a message of the conversation`);
          return;
        }
        if (this.options.protocol === 2 && !idle) {
          this.set(id, 'fail', 'no state_update before the answer');
          return;
        }
      }
      this.set(id, 'pass', `${replayed} update(s) replayed`);
    } finally {
      await peer.close();
    }
  }

  async newerClient(peer: AgentPeer): Promise<void> {
    const asked = 99;
    const answer = await this.attempt('initialize-newer-client', () =>
      peer.request('initialize', this.initializeParams(asked)),
    );
    if (!answer) return;
    const version = (answer.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    const latest = typeof version === 'number' && Number.isInteger(version) && version >= 1 && version < asked;
    this.set('initialize-newer-client', latest ? 'pass' : 'fail', `asked for v${asked}, answered ${version}`);
  }
}

function updateOf(message: WireMessage, sessionId: string): Record<string, unknown> | undefined {
  if (message.method !== 'session/update') return undefined;
  const params = message.params as { sessionId?: string; update?: Record<string, unknown> } | undefined;
  return params?.sessionId === sessionId ? params.update : undefined;
}

/** The gated methods (ACP's capabilities; v2 keeps only session/delete gated) the agent did not advertise. */
function unadvertisedCalls(
  protocol: 1 | 2,
  capabilities: Record<string, unknown>,
  newSession: Record<string, unknown>,
  sessionId: string,
  cwd: string,
): [string, Record<string, unknown>][] {
  const offered = (from: unknown, key: string) =>
    typeof from === 'object' && from !== null && (from as Record<string, unknown>)[key] != null;
  if (protocol === 2) return offered(capabilities.session, 'delete') ? [] : [['session/delete', { sessionId }]];
  const session = capabilities.sessionCapabilities;
  const calls: [string, Record<string, unknown>, boolean][] = [
    ['session/load', { sessionId, cwd, mcpServers: [] }, capabilities.loadSession === true],
    ['session/set_mode', { sessionId, modeId: 'default' }, offered(newSession, 'modes')],
    ['session/resume', { sessionId, cwd }, offered(session, 'resume')],
    ['session/list', {}, offered(session, 'list')],
    ['session/close', { sessionId }, offered(session, 'close')],
    ['session/delete', { sessionId }, offered(session, 'delete')],
  ];
  return calls.filter(([, , advertised]) => !advertised).map(([method, params]) => [method, params]);
}
