// Reins items -> Codex ThreadItems, one by one and without a process. Every item is also checked
// against the pinned Codex's own schema of a ThreadItem (inside an item/completed notification).
import { describe, expect, it } from 'vitest';
import { codexSchema } from '../../test/support/codex-schema.js';
import { boundedJson } from '../json.js';
import { threadItemOf, userInputOf } from './items.js';
import type { ThreadItem } from './wire.js';

const THREAD = 'thread-1';

function valid(item: ThreadItem): ThreadItem {
  const notification = {
    method: 'item/completed',
    params: { item, threadId: THREAD, turnId: 't', completedAtMs: 1 },
  };
  expect(codexSchema().notification(notification)).toBeUndefined();
  return item;
}

describe('threadItemOf', () => {
  it('a command without an exit code says null, not 0', () => {
    const item = valid(
      threadItemOf(
        {
          kind: 'tool_call',
          id: 't',
          status: 'completed',
          tool: { kind: 'command', name: 'exec_command' },
          input: { cmd: ['echo', 'hi'], cwd: '/elsewhere' },
          output: { text: 'hi\n' },
        },
        { threadId: THREAD, cwd: '/work' },
      ),
    );
    expect(item).toMatchObject({ command: 'echo hi', cwd: '/elsewhere', aggregatedOutput: 'hi\n', exitCode: null });
  });

  it('a file change lists its changes with kinds and diffs (an empty diff where none was reported)', () => {
    const item = valid(
      threadItemOf(
        {
          kind: 'tool_call',
          id: 'f1',
          status: 'completed',
          tool: { kind: 'file_change', name: 'Edit' },
          input: {},
          changes: [
            { path: '/work/new.txt', kind: 'add', diff: 'hello\n' },
            { path: '/work/a.ts', kind: 'update', diff: '@@ -1 +1 @@\n-a\n+b\n' },
            { path: '/work/old.ts', kind: 'move', movePath: '/work/moved.ts' },
            { path: '/work/gone.ts', kind: 'delete' },
          ],
        },
        { threadId: THREAD, cwd: '/work' },
      ),
    );
    expect(item).toEqual({
      type: 'fileChange',
      id: 'f1',
      status: 'completed',
      changes: [
        { path: '/work/new.txt', kind: { type: 'add' }, diff: 'hello\n' },
        { path: '/work/a.ts', kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-a\n+b\n' },
        { path: '/work/old.ts', kind: { type: 'update', move_path: '/work/moved.ts' }, diff: '' },
        { path: '/work/gone.ts', kind: { type: 'delete' }, diff: '' },
      ],
    });
  });

  it('an MCP tool is an mcpToolCall with server and tool from its name, and its result', () => {
    const item = valid(
      threadItemOf(
        {
          kind: 'tool_call',
          id: 'm',
          status: 'completed',
          tool: { kind: 'mcp', name: 'mcp__echo__say' },
          input: { text: 'ping' },
          output: { text: 'echo: ping', structured: { ok: true } },
        },
        { threadId: THREAD, cwd: '/work' },
      ),
    );
    expect(item).toMatchObject({
      type: 'mcpToolCall',
      server: 'echo',
      tool: 'say',
      status: 'completed',
      arguments: { text: 'ping' },
      result: { content: [{ type: 'text', text: 'echo: ping' }], structuredContent: { ok: true } },
      error: null,
    });
  });

  it('any other tool is a dynamicToolCall; a declined one failed', () => {
    const item = valid(
      threadItemOf(
        {
          kind: 'tool_call',
          id: 'o',
          status: 'declined',
          tool: { kind: 'other', name: 'WebFetch' },
          input: { url: 'http://127.0.0.1/' },
        },
        { threadId: THREAD, cwd: '/work' },
      ),
    );
    expect(item).toMatchObject({ type: 'dynamicToolCall', tool: 'WebFetch', status: 'failed', success: false });
  });

  it('an MCP call carries the environment Codex 0.171.0 asks for (none) and a failure as its error', () => {
    const item = valid(
      threadItemOf(
        {
          kind: 'tool_call',
          id: 'm2',
          status: 'failed',
          tool: { kind: 'mcp', name: 'plain' },
          input: undefined,
          output: { text: 'no such tool' },
        },
        { threadId: THREAD, cwd: '/work' },
      ),
    );
    expect(item).toMatchObject({
      type: 'mcpToolCall',
      environmentId: null,
      server: '',
      tool: 'plain',
      arguments: null,
      result: null,
      error: { message: 'no such tool' },
    });
  });

  it('a web search names its query and claims no results in a shape it does not know', () => {
    const item = valid(
      threadItemOf(
        {
          kind: 'tool_call',
          id: 'w',
          status: 'completed',
          tool: { kind: 'web_search', name: 'WebSearch' },
          input: { query: 'reins' },
          output: { structured: [{ title: 'x' }] },
        },
        { threadId: THREAD, cwd: '/work' },
      ),
    );
    expect(item).toMatchObject({ type: 'webSearch', query: 'reins', results: null });
  });

  it('plans, compactions, reasoning and user messages have their Codex shapes', () => {
    const context = { threadId: THREAD, cwd: '/work' };
    expect(
      valid(
        threadItemOf(
          { kind: 'plan', id: 'p', status: 'completed', entries: [{ text: 'a', status: 'pending' }] },
          context,
        ),
      ),
    ).toEqual({ type: 'plan', id: 'p', text: '- [pending] a' });
    expect(valid(threadItemOf({ kind: 'compaction', id: 'c', status: 'completed', preTokens: 9 }, context))).toEqual({
      type: 'contextCompaction',
      id: 'c',
    });
    expect(
      valid(
        threadItemOf(
          {
            kind: 'user_message',
            id: 'u',
            status: 'completed',
            text: 'look',
            clientMessageId: 'c-1',
            images: [
              { source: 'data', mediaType: 'image/png', data: 'AAAA' },
              { source: 'path', path: '/tmp/x.png' },
            ],
          },
          context,
        ),
      ),
    ).toEqual({
      type: 'userMessage',
      id: 'u',
      clientId: 'c-1',
      content: [
        { type: 'text', text: 'look', text_elements: [] },
        { type: 'image', url: 'data:image/png;base64,AAAA' },
        { type: 'localImage', path: '/tmp/x.png' },
      ],
    });
  });
});

describe('user input and harness values', () => {
  it('a turn input keeps its text, images and file references (as mentions)', () => {
    expect(userInputOf({ text: '', files: [{ path: '/work/src/a.ts' }] })).toEqual([
      { type: 'mention', name: 'a.ts', path: '/work/src/a.ts' },
    ]);
    expect(userInputOf({ text: '' })).toEqual([{ type: 'text', text: '', text_elements: [] }]);
  });

  it('cuts a value nested too deep for any writer, and drops what JSON cannot hold', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 50_000; i++) deep = { next: deep };
    const bounded = boundedJson(deep);
    expect(() => JSON.stringify(bounded)).not.toThrow();
    expect(JSON.stringify(bounded)).toContain('nested too deep');
    expect(boundedJson({ a: undefined, b: Number.NaN, c: 1n, d: [undefined] })).toEqual({ b: null, c: '1', d: [null] });
  });
});
