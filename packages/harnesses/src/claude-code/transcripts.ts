// Session list and history from Claude Code's own conversation transcripts:
// `<config dir>/projects/<cwd with every non-alphanumeric character as ->/<session id>.jsonl`, where
// the config dir is CLAUDE_CONFIG_DIR or $HOME/.claude (2.1.197). These hold the conversation, not
// credentials. Transcript `user`/`assistant` entries have the stream-json message shape, so history
// reuses the stream-json translation. What is machinery in user-role text (command records, local
// command output, interrupt markers) is decided by core's system-text registry, not here.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { classifyUserText, type Item, type SessionSummary, type UserMessageItem } from '@reins/core';
import { createTranslationState, translateFrame } from '../protocols/stream-json/index.js';

export function configDir(env: Record<string, string | undefined>): string | undefined {
  if (env.CLAUDE_CONFIG_DIR) return env.CLAUDE_CONFIG_DIR;
  return env.HOME ? join(env.HOME, '.claude') : undefined;
}

export function projectSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

export function transcriptPath(env: Record<string, string | undefined>, cwd: string, id: string): string | undefined {
  const dir = configDir(env);
  return dir ? join(dir, 'projects', projectSlug(cwd), `${id}.jsonl`) : undefined;
}

type Entry = Record<string, unknown>;

function parseLines(text: string): Entry[] {
  const entries: Entry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null) entries.push(value as Entry);
    } catch {
      // a torn last line while the CLI is writing: skip it
    }
  }
  return entries;
}

/** The text of a user-role entry (not a tool result, a meta reminder or a subagent's). */
function userText(entry: Entry): string | undefined {
  if (entry.type !== 'user' || entry.isMeta === true || entry.isSidechain === true) return undefined;
  const message = entry.message as { content?: unknown } | undefined;
  const content = message?.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content) && content.every((block) => (block as { type?: string }).type === 'text')
        ? content.map((block) => String((block as { text?: unknown }).text ?? '')).join('')
        : undefined;
  return text;
}

/** A prompt the user typed: user text the registry does not classify as machinery. */
function userPrompt(entry: Entry): string | undefined {
  const text = userText(entry);
  return text !== undefined && classifyUserText(text).origin === 'user' ? text : undefined;
}

/** A user-role entry as a history item, its origin (and a notification's sentence) from the registry. */
function userItem(entry: Entry, index: number): UserMessageItem | undefined {
  const text = userText(entry);
  if (text === undefined) return undefined;
  const classified = classifyUserText(text);
  return {
    kind: 'user_message',
    id: String(entry.uuid ?? `user_${index}`),
    status: 'completed',
    text: classified.text,
    replay: true,
    ...(classified.origin !== 'user' ? { origin: classified.origin } : {}),
  };
}

export async function listTranscripts(env: Record<string, string | undefined>, cwd: string): Promise<SessionSummary[]> {
  const dir = configDir(env);
  if (!dir) return [];
  const folder = join(dir, 'projects', projectSlug(cwd));
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const summaries = await Promise.all(
    names.map(async (name): Promise<SessionSummary | undefined> => {
      const path = join(folder, name);
      try {
        const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
        const entries = parseLines(text);
        if (!entries.some((entry) => entry.type === 'user' || entry.type === 'assistant')) return undefined;
        const titled = [...entries]
          .reverse()
          .find((entry) => entry.type === 'custom-title' || entry.type === 'summary');
        const title =
          (titled && typeof titled.customTitle === 'string' && titled.customTitle) ||
          (titled && typeof titled.summary === 'string' && titled.summary) ||
          entries.map(userPrompt).find((prompt) => prompt !== undefined);
        return {
          nativeSessionId: name.slice(0, -'.jsonl'.length),
          cwd,
          ...(title ? { title: title.slice(0, 200) } : {}),
          updatedAt: info.mtimeMs,
        };
      } catch {
        return undefined;
      }
    }),
  );
  return summaries
    .filter((summary): summary is SessionSummary => summary !== undefined)
    .sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
}

export async function readHistory(
  env: Record<string, string | undefined>,
  cwd: string,
  id: string,
): Promise<Item[] | undefined> {
  const path = transcriptPath(env, cwd, id);
  if (!path) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  const state = createTranslationState({ source: 'claude.transcript', harnessName: 'Claude Code' });
  const items: Item[] = [];
  for (const entry of parseLines(text)) {
    if (entry.isSidechain === true) continue;
    const user = userItem(entry, items.length);
    if (user !== undefined) {
      items.push(user);
      continue;
    }
    if (entry.type !== 'user' && entry.type !== 'assistant') continue;
    const frame = {
      type: entry.type,
      message: entry.message,
      parent_tool_use_id: null,
      ...(entry.toolUseResult !== undefined ? { tool_use_result: entry.toolUseResult } : {}),
    };
    for (const { payload } of translateFrame(state, frame)) {
      if (payload.type === 'item.completed') items.push(payload.item);
    }
  }
  // Tool calls that never got a result in the transcript are shown as they were left.
  for (const open of state.tools.values()) {
    items.push(open.kind === 'plan' ? { ...open, status: 'cancelled' } : { ...open, status: 'cancelled' });
  }
  return items;
}
