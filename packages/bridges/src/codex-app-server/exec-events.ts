// Pure: what `codex exec --experimental-json` 0.171.0 prints (one JSON event per line, the events
// @openai/codex-sdk reads), from the app-server notifications of one thread. Shapes calibrated
// against the real `codex exec` on the scripted model (docs/harnesses/codex.md, "Other Codex clients"):
// items get ids `item_0`, `item_1`, … in the order they appear; commands and MCP calls are told
// when they start and when they end, messages and reasoning only when complete; a turn's usage is
// what it added to the thread's total.
import { isRecord } from '@reins/core';

export type ExecEvent = Record<string, unknown> & { type: string };

type Params = Record<string, unknown>;
type Breakdown = {
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  reasoningOutputTokens?: number;
};

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

export class ExecEventTranslator {
  private readonly ids = new Map<string, string>();
  private total: Breakdown = {};
  private atTurnStart: Breakdown = {};
  /** The last complete agent message of the turn (the human form prints it; `-o` writes it). */
  lastMessage: string | undefined;

  threadStarted(threadId: string): ExecEvent {
    return { type: 'thread.started', thread_id: threadId };
  }

  /** The exec events for one app-server notification (none for what exec does not show). */
  translate(method: string, params: Params): ExecEvent[] {
    switch (method) {
      case 'turn/started':
        this.atTurnStart = this.total;
        return [{ type: 'turn.started' }];
      case 'item/started': {
        const item = this.itemOf(params.item, false);
        return item ? [{ type: 'item.started', item }] : [];
      }
      case 'item/completed': {
        const item = this.itemOf(params.item, true);
        return item ? [{ type: 'item.completed', item }] : [];
      }
      case 'thread/tokenUsage/updated': {
        const usage = isRecord(params.tokenUsage) ? params.tokenUsage : {};
        if (isRecord(usage.total)) this.total = usage.total as Breakdown;
        return [];
      }
      case 'error': {
        const error = isRecord(params.error) ? params.error : {};
        // A retried error is Codex's own business; exec shows the one that ends the turn.
        return params.willRetry === true ? [] : [{ type: 'error', message: str(error.message) }];
      }
      case 'turn/completed':
        return [this.turnEnd(isRecord(params.turn) ? params.turn : {})];
      default:
        return [];
    }
  }

  private turnEnd(turn: Params): ExecEvent {
    if (turn.status === 'completed') {
      const delta = (key: keyof Breakdown) => Math.max(0, (this.total[key] ?? 0) - (this.atTurnStart[key] ?? 0));
      return {
        type: 'turn.completed',
        usage: {
          input_tokens: delta('inputTokens'),
          cached_input_tokens: delta('cachedInputTokens'),
          cache_write_input_tokens: 0,
          output_tokens: delta('outputTokens'),
          reasoning_output_tokens: delta('reasoningOutputTokens'),
        },
      };
    }
    const error = isRecord(turn.error) ? str(turn.error.message) : '';
    return {
      type: 'turn.failed',
      error: { message: error || (turn.status === 'interrupted' ? 'turn interrupted' : 'turn failed') },
    };
  }

  private idOf(raw: unknown): string {
    const key = str(raw);
    let id = this.ids.get(key);
    if (!id) {
      id = `item_${this.ids.size}`;
      this.ids.set(key, id);
    }
    return id;
  }

  private itemOf(raw: unknown, completed: boolean): ExecEvent['item'] | undefined {
    if (!isRecord(raw)) return undefined;
    const status = (value: unknown) => (!completed ? 'in_progress' : value === 'completed' ? 'completed' : 'failed');
    switch (raw.type) {
      case 'agentMessage': {
        if (!completed) return undefined;
        this.lastMessage = str(raw.text);
        return { id: this.idOf(raw.id), type: 'agent_message', text: this.lastMessage };
      }
      case 'reasoning': {
        if (!completed) return undefined;
        const parts = [
          ...(Array.isArray(raw.summary) ? raw.summary : []),
          ...(Array.isArray(raw.content) ? raw.content : []),
        ];
        return {
          id: this.idOf(raw.id),
          type: 'reasoning',
          text: parts.filter((part) => typeof part === 'string').join('\n'),
        };
      }
      case 'commandExecution':
        return {
          id: this.idOf(raw.id),
          type: 'command_execution',
          command: str(raw.command),
          aggregated_output: str(raw.aggregatedOutput),
          exit_code: typeof raw.exitCode === 'number' ? raw.exitCode : null,
          status: status(raw.status),
        };
      case 'fileChange': {
        if (!completed) return undefined;
        const changes = Array.isArray(raw.changes) ? raw.changes.filter(isRecord) : [];
        return {
          id: this.idOf(raw.id),
          type: 'file_change',
          changes: changes.map((change) => {
            const kind = isRecord(change.kind) ? str(change.kind.type) : '';
            return { path: str(change.path), kind: kind === 'add' || kind === 'delete' ? kind : 'update' };
          }),
          status: status(raw.status),
        };
      }
      case 'mcpToolCall': {
        const result = isRecord(raw.result) ? raw.result : undefined;
        const error = isRecord(raw.error) ? raw.error : undefined;
        return {
          id: this.idOf(raw.id),
          type: 'mcp_tool_call',
          server: str(raw.server),
          tool: str(raw.tool),
          arguments: raw.arguments ?? null,
          ...(result
            ? { result: { content: result.content ?? [], structured_content: result.structuredContent ?? null } }
            : {}),
          ...(error ? { error: { message: str(error.message) } } : {}),
          status: status(raw.status),
        };
      }
      case 'webSearch':
        return completed ? { id: this.idOf(raw.id), type: 'web_search', query: str(raw.query) } : undefined;
      default:
        return undefined;
    }
  }
}
