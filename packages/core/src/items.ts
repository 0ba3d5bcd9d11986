// Item kinds (public, docs/architecture/contract.md): the units a turn is made of. An item is announced by `item.started`,
// previewed by `item.delta`, and settled by `item.completed`, whose item is the truth.
import { z } from 'zod';
import type { Assert, Equals } from './assert.js';

export const ITEM_STATUSES = ['running', 'completed', 'failed', 'declined', 'cancelled'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
export const ItemStatusSchema = z.enum(ITEM_STATUSES);

export const TOOL_KINDS = ['command', 'file_change', 'mcp', 'web_search', 'subagent', 'other'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];
export const ToolKindSchema = z.enum(TOOL_KINDS);

export interface ImageRef {
  /** Inline base64 data with its media type, or a path the harness can read. */
  source: 'data' | 'path';
  mediaType?: string;
  data?: string;
  path?: string;
}
export const ImageRefSchema = z.object({
  source: z.enum(['data', 'path']),
  mediaType: z.string().optional(),
  data: z.string().optional(),
  path: z.string().optional(),
});

export interface UserMessageItem {
  kind: 'user_message';
  id: string;
  status: ItemStatus;
  text: string;
  images?: ImageRef[];
  /** True when the harness replayed this from history (resume/load), not a new input. */
  replay?: boolean;
  /** The caller's own id for this message (`SendOptions.clientMessageId`), to match an optimistic bubble. */
  clientMessageId?: string;
  /**
   * Who wrote it: `user` (default when absent), `synthetic` (machinery a harness left in user-role text;
   * clients hide it) or `notification` (a harness notice, rewritten to a readable sentence).
   */
  origin?: UserMessageOrigin;
}
export const USER_MESSAGE_ORIGINS = ['user', 'synthetic', 'notification'] as const;
export type UserMessageOrigin = (typeof USER_MESSAGE_ORIGINS)[number];
export interface AgentMessageItem {
  kind: 'agent_message';
  id: string;
  status: ItemStatus;
  text: string;
}
export interface ReasoningItem {
  kind: 'reasoning';
  id: string;
  status: ItemStatus;
  text: string;
  summary?: string;
}
export interface ToolInfo {
  kind: ToolKind;
  /** The harness's own tool name: Bash, exec_command, run_shell_command, mcp__server__tool, ... */
  name: string;
  title?: string;
}
export interface ToolOutput {
  /** What a person reads. */
  text?: string;
  /** What a program reads (stdout/stderr split, MCP result, ...), as the harness gave it. */
  structured?: unknown;
}
export interface FileChange {
  path: string;
  kind: 'add' | 'update' | 'delete' | 'move';
  diff?: string;
  movePath?: string;
}
export interface ToolCallItem {
  kind: 'tool_call';
  id: string;
  status: ItemStatus;
  tool: ToolInfo;
  /** Absent when the harness sent none (a Claude Code tool_use without input; JSON drops undefined). */
  input?: unknown;
  output?: ToolOutput;
  exitCode?: number;
  changes?: FileChange[];
}
export interface PlanEntry {
  text: string;
  status: 'pending' | 'in_progress' | 'completed';
  priority?: 'high' | 'medium' | 'low';
}
export interface PlanItem {
  kind: 'plan';
  id: string;
  status: ItemStatus;
  entries: PlanEntry[];
}
export interface CompactionItem {
  kind: 'compaction';
  id: string;
  status: ItemStatus;
  /** The harness's own numbers, verbatim; absent when it did not report them. */
  trigger?: string;
  preTokens?: number;
  postTokens?: number;
}
export type Item = UserMessageItem | AgentMessageItem | ReasoningItem | ToolCallItem | PlanItem | CompactionItem;
export type ItemKind = Item['kind'];

const base = { id: z.string(), status: ItemStatusSchema };
export const UserMessageItemSchema = z.object({
  kind: z.literal('user_message'),
  ...base,
  text: z.string(),
  images: z.array(ImageRefSchema).optional(),
  replay: z.boolean().optional(),
  clientMessageId: z.string().optional(),
  origin: z.enum(USER_MESSAGE_ORIGINS).optional(),
});
export const AgentMessageItemSchema = z.object({ kind: z.literal('agent_message'), ...base, text: z.string() });
export const ReasoningItemSchema = z.object({
  kind: z.literal('reasoning'),
  ...base,
  text: z.string(),
  summary: z.string().optional(),
});
export const ToolInfoSchema = z.object({ kind: ToolKindSchema, name: z.string(), title: z.string().optional() });
export const ToolOutputSchema = z.object({ text: z.string().optional(), structured: z.unknown().optional() });
export const FileChangeSchema = z.object({
  path: z.string(),
  kind: z.enum(['add', 'update', 'delete', 'move']),
  diff: z.string().optional(),
  movePath: z.string().optional(),
});
export const ToolCallItemSchema = z.object({
  kind: z.literal('tool_call'),
  ...base,
  tool: ToolInfoSchema,
  input: z.unknown().optional(),
  output: ToolOutputSchema.optional(),
  exitCode: z.number().int().optional(),
  changes: z.array(FileChangeSchema).optional(),
});
export const PlanEntrySchema = z.object({
  text: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
  priority: z.enum(['high', 'medium', 'low']).optional(),
});
export const PlanItemSchema = z.object({ kind: z.literal('plan'), ...base, entries: z.array(PlanEntrySchema) });
export const CompactionItemSchema = z.object({
  kind: z.literal('compaction'),
  ...base,
  trigger: z.string().optional(),
  preTokens: z.number().int().nonnegative().optional(),
  postTokens: z.number().int().nonnegative().optional(),
});
export const ItemSchema = z.discriminatedUnion('kind', [
  UserMessageItemSchema,
  AgentMessageItemSchema,
  ReasoningItemSchema,
  ToolCallItemSchema,
  PlanItemSchema,
  CompactionItemSchema,
]);

type _ItemInSync = Assert<Equals<z.output<typeof ItemSchema>, Item>>;
type _ImageRefInSync = Assert<Equals<z.output<typeof ImageRefSchema>, ImageRef>>;
