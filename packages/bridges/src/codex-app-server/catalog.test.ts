// thread/list with every parameter, and the thread and model objects, checked against the pinned
// Codex schema.
import { describe, expect, it } from 'vitest';
import { codexSchema } from '../../test/support/codex-schema.js';
import { listThreads, modelOf, type ThreadFacts, threadListQueryOf, threadObject } from './catalog.js';
import { ParamsError } from './requests.js';
import type { Thread } from './wire.js';

const facts = (id: string, extra: Partial<ThreadFacts> = {}): ThreadFacts => ({
  id,
  cwd: '/work',
  provider: 'claude-code',
  createdAtMs: 1_000_000,
  updatedAtMs: 2_000_000,
  recency: true,
  status: { type: 'notLoaded' },
  source: 'vscode',
  ...extra,
});

const threads: Thread[] = [
  threadObject(facts('a', { name: 'Fix the login bug', createdAtMs: 1_000_000, updatedAtMs: 9_000_000 })),
  threadObject(facts('b', { preview: 'Write docs', createdAtMs: 2_000_000, updatedAtMs: 3_000_000, cwd: '/other' })),
  threadObject(
    facts('c', { name: 'Refactor login', createdAtMs: 3_000_000, updatedAtMs: 4_000_000, source: 'unknown' }),
  ),
];

const ids = (params: Record<string, unknown>) => {
  const page = listThreads(threads, threadListQueryOf(params));
  expect(codexSchema().response('thread/list', { result: page })).toBeUndefined();
  return page.data.map((thread) => thread.id);
};

describe('thread/list', () => {
  it('is newest first by creation, and pages with its own cursors', () => {
    expect(ids({})).toEqual(['c', 'b', 'a']);
    const first = listThreads(threads, threadListQueryOf({ limit: 2 }));
    expect(first.data.map((thread) => thread.id)).toEqual(['c', 'b']);
    expect(first.nextCursor).not.toBeNull();
    expect(ids({ limit: 2, cursor: first.nextCursor })).toEqual(['a']);
    expect(listThreads(threads, threadListQueryOf({ limit: 2, cursor: first.nextCursor })).nextCursor).toBeNull();
  });

  it('sorts by the key and direction asked', () => {
    expect(ids({ sortKey: 'updated_at' })).toEqual(['a', 'c', 'b']);
    expect(ids({ sortKey: 'created_at', sortDirection: 'asc' })).toEqual(['a', 'b', 'c']);
    expect(ids({ sortKey: 'recency_at', sortDirection: 'asc' })).toEqual(['b', 'c', 'a']);
  });

  it('filters by search term, cwd, ids, provider and source', () => {
    expect(ids({ searchTerm: 'LOGIN' })).toEqual(['c', 'a']);
    expect(ids({ searchTerm: 'docs' })).toEqual(['b']);
    expect(ids({ cwd: '/other' })).toEqual(['b']);
    expect(ids({ cwd: ['/work', '/nowhere'] })).toEqual(['c', 'a']);
    expect(ids({ includedThreadIds: ['a', 'b'], excludedThreadIds: ['b'] })).toEqual(['a']);
    expect(ids({ includedThreadIds: [] })).toEqual([]);
    expect(ids({ modelProviders: ['openai'] })).toEqual([]);
    expect(ids({ modelProviders: ['claude-code'] })).toEqual(['c', 'b', 'a']);
    // The TUI's resume picker asks for `cli` and `vscode`.
    expect(ids({ sourceKinds: ['cli', 'vscode'] })).toEqual(['b', 'a']);
    expect(ids({ sourceKinds: ['appServer'] })).toEqual([]);
    // Nothing is archived or sectioned here.
    expect(ids({ archived: true })).toEqual([]);
    expect(ids({ sectionId: 'favourites' })).toEqual([]);
    expect(ids({ sectionId: null, archived: false })).toEqual(['c', 'b', 'a']);
  });

  it('lists archived threads only when asked for them, and then only they', () => {
    const archived = new Set(['b']);
    const page = (params: Record<string, unknown>) =>
      listThreads(threads, threadListQueryOf(params), archived).data.map((thread) => thread.id);
    expect(page({})).toEqual(['c', 'a']);
    expect(page({ archived: false })).toEqual(['c', 'a']);
    expect(page({ archived: true })).toEqual(['b']);
  });

  it('refuses what it cannot take, naming the field', () => {
    const field = (params: Record<string, unknown>) => {
      try {
        threadListQueryOf(params);
      } catch (error) {
        return error instanceof ParamsError ? error.field : String(error);
      }
      return undefined;
    };
    expect(field({ limit: 'x' })).toBe('limit');
    expect(field({ cursor: 'from-somewhere-else' })).toBe('cursor');
    expect(field({ sortKey: 'name' })).toBe('sortKey');
    expect(field({ excludedThreadIds: Array.from({ length: 101 }, (_, i) => String(i)) })).toBe('excludedThreadIds');
    expect(field({ originators: ['vscode'] })).toBe('originators');
  });
});

describe('model/list entries', () => {
  it('always name a default effort: the bridge default, else "default" (the harness picks)', () => {
    const model = modelOf({ id: 'sonnet', displayName: 'Sonnet', efforts: ['low', 'high'] }, true, undefined);
    const answer = { result: { data: [model], nextCursor: null } };
    expect(codexSchema().response('model/list', answer)).toBeUndefined();
    expect(model).toMatchObject({
      defaultReasoningEffort: 'default',
      inputModalities: ['text', 'image'],
      isDefault: false,
    });
    expect(modelOf({ id: 'x' }, false, 'high')).toMatchObject({
      defaultReasoningEffort: 'high',
      supportedReasoningEfforts: [],
    });
  });
});
