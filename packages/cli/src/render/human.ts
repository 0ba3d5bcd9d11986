// The people-facing rendering of the event stream: text as it arrives, reasoning dimmed, one line
// per tool call (rewritten in place on a TTY when it settles), and a final summary line with the
// outcome, usage and cost where known (absent, never 0), and the id to resume with.
import type { ItemCompletedEvent, ReinsEvent, ToolCallItem, TurnCompletedEvent, Usage } from '@reins/core';
import { makeStyle, type Style } from './style.js';

export interface HumanRendererOptions {
  color: boolean;
  /** Rewrite a tool's line in place when it settles (TTY only). */
  live: boolean;
  harness: string;
}

type Block = 'none' | 'text' | 'reasoning' | 'tool';

export class HumanRenderer {
  private readonly style: Style;
  private block: Block = 'none';
  private atLineStart = true;
  /** The tool whose "running" line is the last thing printed, so it can be rewritten. */
  private liveTool: string | undefined;
  private readonly streamed = new Set<string>();
  nativeSessionId: string | undefined;
  lastUsage: Usage | undefined;
  model: string | undefined;

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: HumanRendererOptions,
  ) {
    this.style = makeStyle(options.color);
  }

  event(event: ReinsEvent): void {
    switch (event.type) {
      case 'session.updated':
        if (event.nativeSessionId) this.nativeSessionId = event.nativeSessionId;
        if (event.model) this.model = event.model;
        return;
      case 'session.started':
        if (event.model) this.model = event.model;
        return;
      case 'item.delta':
        if (event.kind === 'text') this.text(event.itemId, event.text, 'text');
        else if (event.kind === 'reasoning') this.text(event.itemId, event.text, 'reasoning');
        return;
      case 'item.started':
        if (event.item.kind === 'tool_call') this.toolStarted(event.item);
        return;
      case 'item.completed':
        this.itemCompleted(event);
        return;
      case 'usage.updated':
        this.lastUsage = { ...this.lastUsage, ...stripEnvelope(event) };
        return;
      case 'permission.requested':
        this.line(this.style.yellow(`? permission: ${event.tool.name} wants to run (request ${event.requestId})`));
        return;
      case 'notice':
        if (event.kind !== 'info') this.line(this.style.yellow(`! ${event.kind}: ${event.message}`));
        return;
      case 'error':
        this.line(this.style.red(`✗ ${event.code}: ${event.message}`));
        return;
      case 'turn.completed':
        this.line(this.summary(event));
        return;
      default:
        return;
    }
  }

  /** The closing line of a turn. */
  summary(event: TurnCompletedEvent): string {
    const usage = event.usage ?? this.lastUsage;
    const parts: string[] = [];
    const outcome = event.outcome;
    if (outcome.status === 'completed') parts.push(this.style.green('✓ completed'));
    else if (outcome.status === 'cancelled') parts.push(this.style.yellow('■ cancelled'));
    else parts.push(this.style.red(`✗ failed (${outcome.error.code}): ${outcome.error.message}`));
    const tokens = tokenCounts(usage?.turn ?? usage?.total);
    if (tokens) parts.push(tokens);
    if (usage?.costUsd) {
      parts.push(`$${usage.costUsd.amount.toFixed(4)}${usage.costUsd.source === 'derived' ? ' (derived)' : ''}`);
    }
    if (this.nativeSessionId) {
      parts.push(`resume: reins run -H ${this.options.harness} --resume ${this.nativeSessionId}`);
    }
    return parts.join(this.style.dim(' · '));
  }

  private text(itemId: string, text: string, kind: 'text' | 'reasoning'): void {
    if (this.block !== kind) this.newBlock(kind);
    this.streamed.add(itemId);
    this.raw(kind === 'reasoning' ? this.style.dim(text) : text);
  }

  private toolStarted(item: ToolCallItem): void {
    this.newBlock('tool');
    const line = this.toolLine(item);
    if (this.options.live) {
      this.raw(line);
      this.liveTool = item.id;
    }
  }

  private itemCompleted(event: ItemCompletedEvent): void {
    const item = event.item;
    if (item.kind === 'tool_call') {
      const line = this.toolLine(item);
      if (this.options.live && this.liveTool === item.id) {
        this.raw(`\r\x1b[2K${line}\n`);
        this.atLineStart = true;
      } else {
        this.line(line);
      }
      this.liveTool = undefined;
      return;
    }
    if (item.kind === 'compaction' && item.status === 'completed') {
      const tokens = item.preTokens !== undefined && item.postTokens !== undefined;
      this.newBlock('tool');
      this.line(
        `${this.style.dim('▸')} context compacted${tokens ? ` (${item.preTokens} → ${item.postTokens} tokens)` : ''}`,
      );
      return;
    }
    // Harnesses without text deltas: print the settled text once.
    if ((item.kind === 'agent_message' || item.kind === 'reasoning') && !this.streamed.has(item.id) && item.text) {
      this.text(item.id, item.text, item.kind === 'agent_message' ? 'text' : 'reasoning');
    }
  }

  private toolLine(item: ToolCallItem): string {
    const status =
      item.status === 'completed'
        ? this.style.green(item.status)
        : item.status === 'running'
          ? this.style.cyan(item.status)
          : this.style.red(item.status);
    const exit = item.exitCode !== undefined ? ` exit ${item.exitCode}` : '';
    const detail = describeInput(item);
    return `${this.style.dim('▸')} ${item.tool.kind} ${this.style.bold(item.tool.name)}${detail ? ` ${detail}` : ''} ${this.style.dim('·')} ${status}${exit}`;
  }

  private newBlock(kind: Block): void {
    if (this.liveTool !== undefined) {
      this.raw('\n');
      this.atLineStart = true;
      this.liveTool = undefined;
    }
    if (!this.atLineStart) this.raw('\n');
    this.block = kind;
  }

  private line(text: string): void {
    this.newBlock('none');
    this.raw(`${text}\n`);
  }

  private raw(text: string): void {
    if (text === '') return;
    this.write(text);
    this.atLineStart = text.endsWith('\n');
  }
}

function stripEnvelope(event: Extract<ReinsEvent, { type: 'usage.updated' }>): Usage {
  const usage: Usage = {};
  if (event.turn) usage.turn = event.turn;
  if (event.total) usage.total = event.total;
  if (event.context) usage.context = event.context;
  if (event.costUsd) usage.costUsd = event.costUsd;
  return usage;
}

/** A short, single-line description of what a tool was asked to do. */
function describeInput(item: ToolCallItem): string {
  if (item.tool.title) return oneLine(item.tool.title);
  const input = item.input as Record<string, unknown> | null;
  if (input && typeof input === 'object') {
    for (const key of ['command', 'cmd', 'file_path', 'path', 'filePath', 'url', 'query', 'description']) {
      const value = input[key];
      if (typeof value === 'string') return oneLine(value);
      if (Array.isArray(value)) return oneLine(value.join(' '));
    }
  }
  const change = item.changes?.[0];
  return change ? oneLine(change.path) : '';
}

function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Token counts with their unit, `21,308 tokens in · 37 out` (a bare number reads like milliseconds). */
export function tokenCounts(tokens: { input?: number; output?: number } | undefined): string | undefined {
  const count = (value: number | undefined) => (value === undefined ? '?' : value.toLocaleString('en-US'));
  if (tokens?.input === undefined && tokens?.output === undefined) return undefined;
  return `${count(tokens.input)} tokens in · ${count(tokens.output)} out`;
}
