// Pure: what the bridge says about threads and models. The Codex Thread object (for a live thread, a
// stored one, or one the bridge only remembers), model/list entries, and thread/list with every one
// of its filters, its sort and its pages.
import type { Effort, ModelInfo, SessionSummary } from '@reins/core';
import type { SessionRecord, TurnRecord } from '../records.js';
import { ParamsError } from './requests.js';
import type { ThreadState } from './state.js';
import type { Model, SessionSource, SortDirection, Thread, ThreadSortKey, ThreadStatus, Turn } from './wire.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A thread as the bridge knows it, before it is put in Codex's shape. */
export interface ThreadFacts {
  id: string;
  cwd: string;
  /** The harness id: it stands where Codex names its model provider. */
  provider: string;
  model?: string;
  effort?: string;
  name?: string;
  preview?: string;
  createdAtMs: number;
  updatedAtMs: number;
  /** Whether the harness's own timestamp says when it was last used. */
  recency: boolean;
  status: ThreadStatus;
  ephemeral?: boolean;
  harnessVersion?: string;
  /**
   * Made through this bridge (`vscode`: what the real app-server 0.171.0 reports for every thread a client
   * starts, and what the TUI's resume picker lists), or found among the harness's own conversations.
   */
  source: 'vscode' | 'unknown';
  /** The thread this one was forked from (thread/fork). */
  forkedFromId?: string;
}

export function threadObject(facts: ThreadFacts, turns: Turn[] = []): Thread {
  const created = seconds(facts.createdAtMs);
  const source: SessionSource = facts.source;
  return {
    id: facts.id,
    sessionId: facts.id,
    forkedFromId: facts.forkedFromId ?? null,
    parentThreadId: null,
    preview: facts.preview ?? '',
    ephemeral: facts.ephemeral === true,
    section: null,
    sectionEnteredAt: null,
    projectId: null,
    historyMode: 'paginated',
    modelProvider: facts.provider,
    model: facts.model ?? null,
    reasoningEffort: facts.effort ?? null,
    createdAt: created,
    updatedAt: seconds(facts.updatedAtMs),
    recencyAt: facts.recency ? seconds(facts.updatedAtMs) : null,
    status: facts.status,
    path: null,
    cwd: facts.cwd,
    cliVersion: facts.harnessVersion ?? '',
    originator: null,
    source,
    threadSource: null,
    agentNickname: null,
    agentRole: null,
    gitInfo: null,
    name: facts.name ?? null,
    turns,
  };
}

/** An open thread's facts, from its live state (`provider`: the harness id). */
export function liveThreadFacts(
  thread: { id: string; createdAt: number; state: ThreadState; request: { ephemeral?: boolean } },
  provider: string,
): ThreadFacts {
  const state = thread.state;
  return {
    id: thread.id,
    cwd: state.cwd,
    provider,
    ...(state.model ? { model: state.model } : {}),
    ...(state.effort ? { effort: state.effort } : {}),
    ...(state.title ? { name: state.title } : {}),
    createdAtMs: thread.createdAt,
    updatedAtMs: Date.now(),
    recency: true,
    status: state.turn ? { type: 'active', activeFlags: [] } : { type: 'idle' },
    ephemeral: thread.request.ephemeral === true,
    ...(state.harnessVersion ? { harnessVersion: state.harnessVersion } : {}),
    source: 'vscode',
    ...(state.forkedFromId ? { forkedFromId: state.forkedFromId } : {}),
  };
}

/** What a thread's record keeps of it (records.ts), after `turn` ended when one did. */
export function threadRecordOf(
  known: SessionRecord | undefined,
  thread: {
    id: string;
    cwd: string;
    createdAtMs: number;
    nativeSessionId?: string | undefined;
    model?: string | undefined;
    effort?: string | undefined;
    title?: string | undefined;
    forkedFromId?: string | undefined;
  },
  turn?: TurnRecord,
): SessionRecord {
  const now = Date.now();
  const record: SessionRecord = known ?? {
    id: thread.id,
    cwd: thread.cwd,
    createdAtMs: thread.createdAtMs,
    updatedAtMs: now,
    turns: [],
  };
  if (thread.nativeSessionId) record.nativeSessionId = thread.nativeSessionId;
  if (thread.model) record.model = thread.model;
  if (thread.effort) record.effort = thread.effort;
  if (thread.title) record.name = thread.title;
  if (thread.forkedFromId) record.forkedFromId = thread.forkedFromId;
  if (turn) {
    record.turns = [...record.turns.filter((seen) => seen.id !== turn.id), turn];
    record.preview ??= turn.firstInput;
  }
  record.updatedAtMs = now;
  return record;
}

/** A conversation the harness keeps, with what the bridge remembers of it. */
export function storedThreadFacts(
  summary: SessionSummary | undefined,
  record: SessionRecord | undefined,
  id: string,
  provider: string,
): ThreadFacts {
  const updated = Math.max(summary?.updatedAt ?? 0, record?.updatedAtMs ?? 0);
  const name = record?.name ?? summary?.title;
  const preview = record?.preview ?? summary?.title;
  return {
    id,
    cwd: summary?.cwd ?? record?.cwd ?? '',
    provider,
    ...(record?.model ? { model: record.model } : {}),
    ...(record?.effort ? { effort: record.effort } : {}),
    ...(name ? { name } : {}),
    ...(preview ? { preview } : {}),
    createdAtMs: record?.createdAtMs ?? updated,
    updatedAtMs: updated,
    recency: summary?.updatedAt !== undefined || record !== undefined,
    status: { type: 'notLoaded' },
    source: record ? 'vscode' : 'unknown',
    ...(record?.forkedFromId ? { forkedFromId: record.forkedFromId } : {}),
  };
}

/**
 * A model entry. Codex requires a default effort: the effort the bridge starts every thread with
 * when it was given one; otherwise `default`, which stands for the harness's own choice (sending it
 * back on turn/start leaves the effort as the harness has it).
 */
export function modelOf(model: ModelInfo, images: boolean, bridgeEffort: Effort | undefined): Model {
  return {
    id: model.id,
    model: model.id,
    upgrade: null,
    upgradeInfo: null,
    availabilityNux: null,
    displayName: model.displayName ?? model.id,
    description: '',
    modelSpecialty: null,
    hidden: false,
    supportedReasoningEfforts: (model.efforts ?? []).map((effort) => ({ reasoningEffort: effort, description: '' })),
    defaultReasoningEffort: bridgeEffort ?? HARNESS_DEFAULT_EFFORT,
    inputModalities: images ? ['text', 'image'] : ['text'],
    supportsPersonality: false,
    multiAgentVersion: null,
    additionalSpeedTiers: [],
    serviceTiers: [],
    defaultServiceTier: null,
    availableAccessPrograms: null,
    isDefault: model.isDefault ?? false,
  };
}

/** The effort name that stands for the harness's own choice (model/list, turn/start). */
export const HARNESS_DEFAULT_EFFORT = 'default';

// ---- thread/list ----

export interface ThreadListQuery {
  cursor: number;
  limit: number;
  sortKey: ThreadSortKey;
  sortDirection: SortDirection;
  cwd?: string[];
  searchTerm?: string;
  excluded: Set<string>;
  included?: Set<string>;
  modelProviders?: string[];
  sourceKinds?: string[];
  archived: boolean;
  /** `sectionId` named a section (the bridge has none), as opposed to absent or null. */
  inSection: boolean;
}

const DEFAULT_PAGE = 25;
const MAX_IDS = 100;
const SORT_KEYS: ThreadSortKey[] = ['created_at', 'updated_at', 'recency_at', 'section_position'];

function stringList(params: Record<string, unknown>, field: string, max?: number): string[] | undefined {
  const value = params[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) {
    throw new ParamsError(field, 'must be a list of strings.');
  }
  if (max !== undefined && value.length > max) throw new ParamsError(field, `takes at most ${max} entries.`);
  return value;
}

/** The page a cursor names (`reins:<offset>`, made by an earlier answer). */
function cursorOf(value: unknown): number {
  if (value === undefined || value === null) return 0;
  const match = typeof value === 'string' ? /^reins:(\d+)$/.exec(value) : null;
  if (!match) throw new ParamsError('cursor', 'is not a cursor this bridge gave out.');
  return Number(match[1]);
}

function limitOf(value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || (value as number) < 0) throw new ParamsError('limit', 'must be a whole number.');
  return value as number;
}

export function sortDirectionOf(value: unknown, fallback: SortDirection): SortDirection {
  if (value === undefined || value === null) return fallback;
  if (value !== 'asc' && value !== 'desc') throw new ParamsError('sortDirection', 'must be "asc" or "desc".');
  return value;
}

/** thread/list params, checked (Codex's own limits: at most 100 ids to include or exclude). */
export function threadListQueryOf(params: Record<string, unknown>): ThreadListQuery {
  const sortKey = params.sortKey ?? 'created_at';
  if (!SORT_KEYS.includes(sortKey as ThreadSortKey))
    throw new ParamsError('sortKey', `must be one of ${SORT_KEYS.join(', ')}.`);
  const originators = stringList(params, 'originators');
  if (originators?.length) {
    // Codex 0.169.0's local app-server refuses a non-empty list too (hosted backends only).
    throw new ParamsError(
      'originators',
      'is served by hosted backends only; a local app-server lists every originator.',
    );
  }
  const cwdValue = params.cwd;
  const cwd =
    typeof cwdValue === 'string'
      ? [cwdValue]
      : cwdValue === undefined || cwdValue === null
        ? undefined
        : stringList(params, 'cwd');
  const searchTerm = params.searchTerm;
  if (searchTerm !== undefined && searchTerm !== null && typeof searchTerm !== 'string') {
    throw new ParamsError('searchTerm', 'must be a string.');
  }
  const included = stringList(params, 'includedThreadIds', MAX_IDS);
  const modelProviders = stringList(params, 'modelProviders');
  const sourceKinds = stringList(params, 'sourceKinds');
  return {
    cursor: cursorOf(params.cursor),
    limit: limitOf(params.limit, DEFAULT_PAGE),
    sortKey: sortKey as ThreadSortKey,
    sortDirection: sortDirectionOf(params.sortDirection, 'desc'),
    ...(cwd ? { cwd } : {}),
    ...(typeof searchTerm === 'string' && searchTerm !== '' ? { searchTerm } : {}),
    excluded: new Set(stringList(params, 'excludedThreadIds', MAX_IDS) ?? []),
    ...(included ? { included: new Set(included) } : {}),
    ...(modelProviders?.length ? { modelProviders } : {}),
    ...(sourceKinds?.length ? { sourceKinds } : {}),
    archived: params.archived === true,
    inSection: typeof params.sectionId === 'string',
  };
}

function sortValue(thread: Thread, key: ThreadSortKey): number {
  if (key === 'updated_at') return thread.updatedAt;
  if (key === 'recency_at') return thread.recencyAt ?? thread.updatedAt;
  // created_at, and section_position: the bridge keeps no sections, so every thread is unsectioned
  // and they keep their creation order.
  return thread.createdAt;
}

/** One page of thread/list from every thread the bridge can name. */
export function listThreads(
  threads: Thread[],
  query: ThreadListQuery,
  archivedIds: ReadonlySet<string> = new Set(),
): { data: Thread[]; nextCursor: string | null; backwardsCursor: string | null } {
  // The bridge keeps no sections.
  if (query.inSection) return { data: [], nextCursor: null, backwardsCursor: null };
  const term = query.searchTerm?.toLowerCase();
  const matching = threads.filter((thread) => {
    // Codex: archived threads only when asked for, and then only they.
    if (archivedIds.has(thread.id) !== query.archived) return false;
    if (query.excluded.has(thread.id)) return false;
    if (query.included && !query.included.has(thread.id)) return false;
    if (query.cwd && !query.cwd.includes(thread.cwd)) return false;
    if (query.modelProviders && !query.modelProviders.includes(thread.modelProvider)) return false;
    if (
      query.sourceKinds &&
      !query.sourceKinds.includes(typeof thread.source === 'string' ? thread.source : 'unknown')
    ) {
      return false;
    }
    if (term && !`${thread.name ?? ''}\n${thread.preview}`.toLowerCase().includes(term)) return false;
    return true;
  });
  const sign = query.sortDirection === 'asc' ? 1 : -1;
  matching.sort(
    (a, b) => sign * (sortValue(a, query.sortKey) - sortValue(b, query.sortKey)) || a.id.localeCompare(b.id),
  );
  const page = matching.slice(query.cursor, query.cursor + query.limit);
  const end = query.cursor + page.length;
  return {
    data: page,
    nextCursor: end < matching.length ? `reins:${end}` : null,
    // Pages are offsets into the sorted list: there is no anchor to read backwards from.
    backwardsCursor: null,
  };
}
