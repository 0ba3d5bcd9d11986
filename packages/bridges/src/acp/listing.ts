// session/list: the conversations the harness keeps (`Harness.listSessions`), as ACP SessionInfo,
// filtered by cwd and paged with opaque cursors. Served only where the adapter lists its sessions
// (initialize advertises `sessionCapabilities.list` there alone). The merge and the paging are pure;
// `listAcpSessions` asks the harness.
//
// A session is listed under the id a client loads it by: the bridge-made `reins-<uuid>` its records
// map to the native id, else the native id itself. Pages are newest first (updatedAt, then id) and a
// cursor names the last entry given out (not an offset), so sessions that start between two pages
// shift nothing: no entry comes twice. It also names the cwd filter it was made for, and is refused
// with another one.
import { isAbsolute, resolve } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import { type Harness, ReinsError, type SessionSummary } from '@reins/core';
import { withDeadline } from '../lifecycle.js';
import type { RecordStore, SessionRecord } from '../records.js';
import type { ListSessionsResponse, SessionInfo } from './wire.js';

/** Sessions per page (ACP lets the agent choose). */
export const SESSION_PAGE_SIZE = 50;

export interface ListedSession {
  sessionId: string;
  cwd: string;
  title?: string;
  /** ms since epoch, when the harness or the records say. */
  updatedAt?: number;
}

export interface SessionListQuery {
  /** Absolute, resolved. */
  cwd?: string;
  /** The last entry of the previous page. */
  after?: { at: number; id: string };
}

interface CursorBody {
  v: 1;
  cwd: string | null;
  at: number;
  id: string;
}

function badParams(field: string, message: string): ReinsError {
  return new ReinsError('invalid_input', `session/list ${field}: ${message}`, {
    operation: 'session/list',
    data: { field },
  });
}

export function encodeCursor(cwd: string | undefined, last: ListedSession): string {
  const body: CursorBody = { v: 1, cwd: cwd ?? null, at: last.updatedAt ?? -1, id: last.sessionId };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

function decodeCursor(cursor: string): CursorBody | undefined {
  try {
    const body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorBody>;
    if (body?.v !== 1 || typeof body.at !== 'number' || typeof body.id !== 'string') return undefined;
    if (body.cwd !== null && typeof body.cwd !== 'string') return undefined;
    return body as CursorBody;
  } catch {
    return undefined;
  }
}

/** session/list params, checked: an absolute cwd, a cursor this bridge gave out for the same filter. */
export function sessionListQueryOf(params: { cwd?: unknown; cursor?: unknown }): SessionListQuery {
  let cwd: string | undefined;
  if (params.cwd !== undefined && params.cwd !== null) {
    if (typeof params.cwd !== 'string' || !isAbsolute(params.cwd)) throw badParams('cwd', 'must be an absolute path.');
    cwd = resolve(params.cwd);
  }
  if (params.cursor === undefined || params.cursor === null) return cwd ? { cwd } : {};
  const body = typeof params.cursor === 'string' ? decodeCursor(params.cursor) : undefined;
  if (!body) throw badParams('cursor', 'is not a cursor this agent gave out; start again without one.');
  if ((body.cwd ?? undefined) !== cwd) {
    throw badParams('cursor', 'was given out for another cwd filter; pass the same cwd as the request that made it.');
  }
  return { ...(cwd ? { cwd } : {}), after: { at: body.at, id: body.id } };
}

/** Newest first, then by id: the order pages follow. */
function order(a: { at: number; id: string }, b: { at: number; id: string }): number {
  return b.at - a.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

const keyOf = (entry: ListedSession) => ({ at: entry.updatedAt ?? -1, id: entry.sessionId });

/**
 * What the harness listed (each summary with the cwd it was asked for, which stands where it names
 * none), merged with the records: one entry per id, under the id a client loads it by.
 */
export function listedSessions(
  found: { summary: SessionSummary; askedCwd: string }[],
  records: readonly SessionRecord[],
): ListedSession[] {
  const byNative = new Map(records.map((record) => [record.nativeSessionId ?? record.id, record]));
  const listed = new Map<string, ListedSession>();
  for (const { summary, askedCwd } of found) {
    const record = byNative.get(summary.nativeSessionId);
    const sessionId = record?.id ?? summary.nativeSessionId;
    const known = listed.get(sessionId);
    const updatedAt = summary.updatedAt ?? record?.updatedAtMs ?? known?.updatedAt;
    listed.set(sessionId, {
      sessionId,
      cwd: resolve(summary.cwd ?? known?.cwd ?? record?.cwd ?? askedCwd),
      ...((summary.title ?? known?.title) ? { title: summary.title ?? known?.title } : {}),
      ...(updatedAt !== undefined ? { updatedAt } : {}),
    });
  }
  return [...listed.values()];
}

export function sessionInfoOf(entry: ListedSession): SessionInfo {
  return {
    sessionId: entry.sessionId,
    cwd: entry.cwd,
    ...(entry.title ? { title: entry.title } : {}),
    ...(entry.updatedAt !== undefined ? { updatedAt: new Date(entry.updatedAt).toISOString() } : {}),
  };
}

/** One page: the entries of the filter's cwd after the cursor's, newest first. */
export function sessionPage(
  entries: readonly ListedSession[],
  query: SessionListQuery,
  pageSize = SESSION_PAGE_SIZE,
): ListSessionsResponse {
  const after = query.after;
  const matching = entries
    .filter((entry) => query.cwd === undefined || entry.cwd === query.cwd)
    .filter((entry) => after === undefined || order(after, keyOf(entry)) < 0)
    .sort((a, b) => order(keyOf(a), keyOf(b)));
  const page = matching.slice(0, pageSize);
  const last = page[page.length - 1];
  return {
    sessions: page.map(sessionInfoOf),
    ...(last && matching.length > page.length ? { nextCursor: encodeCursor(query.cwd, last) } : {}),
  };
}

export interface ListingContext {
  harness: Harness;
  records: RecordStore;
  /** The folders the bridge knows of beside the records' (its own cwd, its open sessions'). */
  folders: () => string[];
  requestTimeoutMs: number;
  log: (message: string) => void;
  /** Whether the harness lists its sessions (the capability matrix says). */
  canList: () => Promise<boolean>;
}

/**
 * session/list. With `cwd`: the harness's conversations of that folder. Without: its unfiltered list
 * and those of every folder the bridge knows of (adapters that keep conversations per folder list
 * only one folder when given none). A folder that cannot be listed is logged and left out.
 */
export async function listAcpSessions(
  context: ListingContext,
  params: { cwd?: unknown; cursor?: unknown },
): Promise<ListSessionsResponse> {
  const listSessions = context.harness.listSessions?.bind(context.harness);
  if (!listSessions || !(await context.canList())) throw RequestError.methodNotFound('session/list');
  const query = sessionListQueryOf(params);
  const records = await context.records.list();
  const folders = query.cwd
    ? [query.cwd]
    : [...new Set([undefined, ...context.folders(), ...records.map((record) => record.cwd)])];
  const found: { summary: SessionSummary; askedCwd: string }[] = [];
  for (const cwd of folders) {
    try {
      const summaries = await withDeadline(listSessions(cwd ? { cwd } : {}), context.requestTimeoutMs, 'listSessions');
      // The adapters read a missing cwd as the process's own.
      for (const summary of summaries) found.push({ summary, askedCwd: cwd ?? process.cwd() });
    } catch (error) {
      context.log(`could not list the ${context.harness.id} sessions${cwd ? ` in ${cwd}` : ''}: ${String(error)}`);
    }
  }
  return sessionPage(listedSessions(found, records), query);
}
