// The bridge's ACP v2 side (draft 2.0.0-alpha, the SDK's experimental/v2): the same sessions as v1
// (agent.ts opens, resumes, lists and closes them), with v2's lifecycle. A prompt is acknowledged at
// once with the id of the user message it inserted; `state_update` reports running, then idle with
// the turn's stop reason (or `error` with the Reins error) once the last queued turn has ended.
// `session/resume` replays the history when asked (`replayFrom: {type: "start"}`) and sends the
// current state before it answers. Updates are translated by v2/updates.ts.
import { randomUUID } from 'node:crypto';
import type { AgentConnection } from '@agentclientprotocol/sdk/experimental/v2';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import type { Harness } from '@reins/core';
import type { HarnessFacts } from '../../harness-facts.js';
import { isImplemented, withDeadline } from '../../lifecycle.js';
import { promptAnswer, toRequestError } from '../answers.js';
import { type ListingContext, listAcpSessions } from '../listing.js';
import type { ClientPort, ForegroundState } from '../port.js';
import { promptInput, settingRequestOf } from '../requests.js';
import type { BridgeSession } from '../session.js';
import { applySetting, type SettingsContext } from '../settings.js';
import type { McpServer, RequestPermissionResponse, SessionConfigOption } from '../wire.js';
import { stateUpdateOf, v1PromptOf, v2ConfigOptionsOf, v2PermissionRequestOf, v2UpdatesOf } from './updates.js';

/**
 * What v2 uses of the bridge (AcpBridge in ../agent.ts, which owns the sessions): named here, so this
 * module does not import the bridge that imports it.
 */
export interface V2Bridge {
  readonly harness: Harness;
  readonly version: string;
  readonly facts: HarnessFacts;
  readonly requestTimeoutMs: number;
  guard<T>(operation: string, work: () => Promise<T>): Promise<T>;
  guardSetting<T>(operation: string, work: () => Promise<T>): Promise<T>;
  setClientNotices(notices: boolean): void;
  newSession(
    cwd: string,
    mcpServers: McpServer[],
  ): Promise<{ sessionId: string; configOptions: SessionConfigOption[] }>;
  resumeSession(
    sessionId: string,
    cwd: string,
    mcpServers: McpServer[],
    replay: boolean,
  ): Promise<{ configOptions: SessionConfigOption[] }>;
  sessionFor(sessionId: string): BridgeSession;
  remember(bridged: BridgeSession): Promise<void>;
  cancel(sessionId: string): void;
  closeSession(sessionId: string): Promise<Record<string, never>>;
  settingsContext(): SettingsContext;
  listingContext(): ListingContext;
}

/** The v2 client as a port for the bridge's sessions. */
function v2Port(connection: AgentConnection): ClientPort {
  const newMessageId = () => `reins-msg-${randomUUID()}`;
  const notify = (sessionId: string, update: v2.SessionUpdate) =>
    connection.client.notify('session/update', { sessionId, update });
  return {
    version: 2,
    signal: connection.signal,
    update: async (sessionId, update) => {
      for (const translated of v2UpdatesOf(update, newMessageId)) await notify(sessionId, translated);
    },
    v2Only: (sessionId, message) =>
      message.kind === 'state'
        ? notify(sessionId, stateUpdateOf(message.state))
        : notify(sessionId, {
            sessionUpdate: 'user_message',
            messageId: message.messageId,
            content: message.content as unknown as v2.ContentBlock[],
          }),
    requestPermission: async (request, signal) =>
      (await connection.client.request('session/request_permission', v2PermissionRequestOf(request), {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      })) as RequestPermissionResponse,
    close: () => connection.close(),
  };
}

/** Turns running per session: running when the first starts, idle when the last ends. */
class Foreground {
  private readonly active = new Map<string, number>();

  started(bridged: BridgeSession): void {
    const count = this.active.get(bridged.acpId) ?? 0;
    this.active.set(bridged.acpId, count + 1);
    if (count === 0) void bridged.sendV2({ kind: 'state', state: { state: 'running' } });
  }

  ended(bridged: BridgeSession, idle: ForegroundState & { state: 'idle' }): void {
    const count = (this.active.get(bridged.acpId) ?? 1) - 1;
    if (count > 0) {
      this.active.set(bridged.acpId, count);
      return;
    }
    this.active.delete(bridged.acpId);
    void bridged.sendV2({ kind: 'state', state: idle });
  }
}

/** The idle state a turn's terminal ends in. */
function idleOf(terminal: Parameters<typeof promptAnswer>[0]): ForegroundState & { state: 'idle' } {
  const answer = promptAnswer(terminal);
  if (answer.ok) return { state: 'idle', stopReason: answer.response.stopReason };
  return { state: 'idle', error: answer.error };
}

export function v2App(bridge: V2Bridge): {
  connect(stream: v2.Stream): { connection: AgentConnection; port: ClientPort };
} {
  const foreground = new Foreground();
  const timeout = bridge.requestTimeoutMs;

  async function prompt(sessionId: string, blocks: v2.ContentBlock[]): Promise<v2.PromptResponse> {
    const bridged = bridge.sessionFor(sessionId);
    bridged.announce();
    const content = v1PromptOf(blocks);
    const input = promptInput(content);
    const sent = await withDeadline(bridged.session.send(input), timeout, 'send');
    const messageId = `reins-user-${sent.turnId}`;
    foreground.started(bridged);
    void bridged.sendV2({ kind: 'user_message', messageId, content });
    bridged
      .waitForTurn(sent.turnId)
      .then(
        (terminal) => idleOf(terminal),
        (error: unknown) => {
          const failed = toRequestError(error, 'session/prompt');
          return { state: 'idle' as const, error: { code: failed.code, message: failed.message } };
        },
      )
      .then((idle) => {
        void bridge.remember(bridged);
        foreground.ended(bridged, idle);
      });
    return { messageId };
  }

  async function resume(params: v2.ResumeSessionRequest): Promise<v2.ResumeSessionResponse> {
    const replay = params.replayFrom?.type === 'start';
    const answer = await bridge.resumeSession(
      params.sessionId,
      params.cwd,
      (params.mcpServers ?? []) as McpServer[],
      replay,
    );
    // After the replay and before the answer: the state now (v2 session setup).
    await bridge.sessionFor(params.sessionId).sendV2({ kind: 'state', state: { state: 'idle' } });
    return { configOptions: v2ConfigOptionsOf(answer.configOptions) };
  }

  const app = v2
    .agent({ name: 'reins-acp-bridge' })
    .onRequest('initialize', () =>
      bridge.guard('initialize', async () => {
        // v2 has notices in its baseline.
        bridge.setClientNotices(true);
        void bridge.facts.catalog();
        const matrix = await bridge.facts.capabilities();
        return {
          protocolVersion: v2.PROTOCOL_VERSION,
          info: { name: 'reins-acp-bridge', title: `Reins: ${bridge.harness.displayName}`, version: bridge.version },
          capabilities: { session: { prompt: isImplemented(matrix, 'images') ? { image: {} } : {} } },
          authMethods: [],
        } satisfies v2.InitializeResponse;
      }),
    )
    .onRequest('session/new', ({ params }) =>
      bridge.guard('session/new', async () => {
        const { sessionId, configOptions } = await bridge.newSession(
          params.cwd,
          (params.mcpServers ?? []) as McpServer[],
        );
        return { sessionId, configOptions: v2ConfigOptionsOf(configOptions) };
      }),
    )
    .onRequest('session/resume', ({ params }) => bridge.guard('session/resume', () => resume(params)))
    .onRequest('session/prompt', ({ params }) =>
      bridge.guard('session/prompt', () => prompt(params.sessionId, params.prompt)),
    )
    .onNotification('session/cancel', ({ params }) => bridge.cancel(params.sessionId))
    .onRequest('session/set_config_option', ({ params }) =>
      bridge.guardSetting('session/set_config_option', async () => {
        const session = bridge.sessionFor(params.sessionId);
        const request = settingRequestOf(params.configId, params.value);
        const configOptions = await applySetting(bridge.settingsContext(), session, request);
        return { configOptions: v2ConfigOptionsOf(configOptions) };
      }),
    )
    .onRequest('session/list', ({ params }) =>
      bridge.guard(
        'session/list',
        async () => (await listAcpSessions(bridge.listingContext(), params)) as v2.ListSessionsResponse,
      ),
    )
    .onRequest('session/close', ({ params }) =>
      bridge.guard('session/close', () => bridge.closeSession(params.sessionId)),
    );

  return {
    connect(stream) {
      const connection = app.connect(stream);
      return { connection, port: v2Port(connection) };
    },
  };
}
