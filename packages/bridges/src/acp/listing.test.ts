// session/list: the pure merge and paging (every page validated against the ACP SDK's schema), and
// the bridge serving it in memory in front of a fake harness that keeps conversations per folder:
// advertised only where the adapter lists, the cwd filter, cursors followed to the end, records'
// bridge-made ids, and the refusals (relative cwd, foreign cursor, a harness that cannot list).
import { type AnyMessage, client } from '@agentclientprotocol/sdk/unstable';
import {
  computeCapabilities,
  type Harness,
  type ImplementedCapabilities,
  type SessionSpec,
  type SessionSummary,
} from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { acpSchema, acpViolations } from '../../test/support/acp-schema.js';
import { memoryRecords, type RecordStore } from '../records.js';
import { AcpBridge } from './agent.js';
import {
  type ListedSession,
  listedSessions,
  SESSION_PAGE_SIZE,
  type SessionListQuery,
  sessionListQueryOf,
  sessionPage,
} from './listing.js';
import type { ListSessionsResponse } from './wire.js';

const schemaErrors = (page: unknown) => acpSchema().check('ListSessionsResponse', page);

function entries(count: number, cwd = '/work'): ListedSession[] {
  return Array.from({ length: count }, (_, index) => ({
    sessionId: `s-${String(index).padStart(3, '0')}`,
    cwd,
    title: `session ${index}`,
    // Two share each timestamp: the id breaks the tie.
    updatedAt: 1_700_000_000_000 + Math.floor(index / 2) * 1000,
  }));
}

/** Follows nextCursor to the end; every page schema-checked. */
function allPages(list: ListedSession[], cwd?: string, pageSize = 3): ListSessionsResponse[] {
  const pages: ListSessionsResponse[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const query: SessionListQuery = sessionListQueryOf({ cwd, cursor });
    const page = sessionPage(list, query, pageSize);
    expect(schemaErrors(page)).toBeUndefined();
    pages.push(page);
    cursor = page.nextCursor ?? undefined;
    if (!cursor) return pages;
  }
  throw new Error('the cursors never ended');
}

describe('session/list paging (pure)', () => {
  it('pages newest first through every entry exactly once, the last page without a cursor', () => {
    const list = entries(10);
    const pages = allPages(list);
    expect(pages.map((page) => page.sessions.length)).toEqual([3, 3, 3, 1]);
    expect(pages.at(-1)?.nextCursor).toBeUndefined();
    const ids = pages.flatMap((page) => page.sessions.map((session) => session.sessionId));
    expect(new Set(ids).size).toBe(10);
    // Newest first; within one timestamp, by id.
    expect(ids.slice(0, 4)).toEqual(['s-008', 's-009', 's-006', 's-007']);
    expect(pages[0]?.sessions[0]).toEqual({
      sessionId: 's-008',
      cwd: '/work',
      title: 'session 8',
      updatedAt: new Date(1_700_000_004_000).toISOString(),
    });
  });

  it('lists nothing twice when newer sessions appear between two pages', () => {
    const list = entries(6);
    const first = sessionPage(list, sessionListQueryOf({}), 3);
    const grown = [...list, { sessionId: 'new-1', cwd: '/work', updatedAt: 1_800_000_000_000 }];
    const second = sessionPage(grown, sessionListQueryOf({ cursor: first.nextCursor }), 3);
    const ids = [...first.sessions, ...second.sessions].map((session) => session.sessionId);
    expect(new Set(ids).size).toBe(6);
    expect(ids).not.toContain('new-1');
  });

  it('filters by cwd (resolved), and a cursor only goes with the filter it was made for', () => {
    const list = [
      ...entries(4, '/work'),
      ...entries(2, '/elsewhere').map((e) => ({ ...e, sessionId: `x${e.sessionId}` })),
    ];
    const pages = allPages(list, '/work/./', 2);
    const ids = pages.flatMap((page) => page.sessions.map((session) => session.sessionId));
    expect(ids).toHaveLength(4);
    expect(ids.every((id) => id.startsWith('s-'))).toBe(true);
    const cursor = pages[0]?.nextCursor ?? undefined;
    expect(cursor).toBeTypeOf('string');
    expect(() => sessionListQueryOf({ cwd: '/elsewhere', cursor })).toThrow(/another cwd filter/);
    expect(() => sessionListQueryOf({ cursor })).toThrow(/another cwd filter/);
  });

  it('refuses a relative cwd and a cursor it did not give out, as invalid input', () => {
    for (const params of [{ cwd: 'work' }, { cwd: 7 }, { cursor: 'page-2' }, { cursor: 'e30' }, { cursor: 3 }]) {
      expect(() => sessionListQueryOf(params), JSON.stringify(params)).toThrow(
        expect.objectContaining({ code: 'invalid_input' }),
      );
    }
  });

  it('an empty list is one page with no cursor', () => {
    const page = sessionPage([], sessionListQueryOf({}));
    expect(page).toEqual({ sessions: [] });
    expect(schemaErrors(page)).toBeUndefined();
  });

  it('lists a conversation under the id a client loads it by (the records map bridge-made ids), once', () => {
    const found = [
      { summary: { nativeSessionId: 'native-a', cwd: '/work', title: 'A', updatedAt: 5 }, askedCwd: '/work' },
      { summary: { nativeSessionId: 'native-b', updatedAt: 4 }, askedCwd: '/asked' },
      // The same conversation again (the unfiltered list and its folder's).
      { summary: { nativeSessionId: 'native-a', cwd: '/work', updatedAt: 5 }, askedCwd: '/work' },
    ];
    const records = [
      { id: 'reins-1', nativeSessionId: 'native-a', cwd: '/work', createdAtMs: 1, updatedAtMs: 2, turns: [] },
    ];
    expect(listedSessions(found, records)).toEqual([
      { sessionId: 'reins-1', cwd: '/work', title: 'A', updatedAt: 5 },
      // No cwd from the harness: the folder it was listed for.
      { sessionId: 'native-b', cwd: '/asked', updatedAt: 4 },
    ]);
  });
});

// ---- the bridge ----

/** A harness that keeps conversations per folder and lists one folder at a time (Claude Code does). */
class ListingHarness implements Harness {
  readonly id = 'claude-code' as const;
  readonly displayName = 'Fake lister';
  readonly asked: (string | undefined)[] = [];
  constructor(
    private readonly stored: SessionSummary[],
    private readonly implemented: ImplementedCapabilities = { resume: true, sessionList: true, history: true },
  ) {}
  async discover() {
    return { found: false as const, searched: [], hint: 'fake' };
  }
  async health() {
    return { status: 'ready' as const };
  }
  async capabilities() {
    return computeCapabilities({ implemented: this.implemented });
  }
  async listSessions(options: { cwd?: string }) {
    this.asked.push(options.cwd);
    const cwd = options.cwd ?? '/bridge-cwd';
    return this.stored.filter((summary) => summary.cwd === cwd);
  }
  async createSession(_spec: SessionSpec): Promise<never> {
    throw new Error('not used here');
  }
}

const wires: { sent: Record<string, unknown>[]; received: Record<string, unknown>[] }[] = [];
afterEach(() => {
  const violations = wires.splice(0).flatMap((wire) => acpViolations(wire.sent, wire.received));
  expect(violations).toEqual([]);
});

function tap(into: Record<string, unknown>[]): TransformStream<AnyMessage, AnyMessage> {
  return new TransformStream<AnyMessage, AnyMessage>({
    transform(message, controller) {
      into.push(structuredClone(message) as Record<string, unknown>);
      controller.enqueue(message);
    },
  });
}

async function joined(harness: Harness, records: RecordStore = memoryRecords()) {
  const wire = { sent: [] as Record<string, unknown>[], received: [] as Record<string, unknown>[] };
  wires.push(wire);
  const toAgent = tap(wire.sent);
  const toClient = tap(wire.received);
  const bridge = new AcpBridge({ harness, requestTimeoutMs: 2_000, records });
  bridge.connect({ readable: toAgent.readable, writable: toClient.writable });
  const connection = client().connect({ readable: toClient.readable, writable: toAgent.writable });
  const init = await connection.agent.request<{ agentCapabilities: { sessionCapabilities: Record<string, unknown> } }>(
    'initialize',
    { protocolVersion: 1, clientCapabilities: {} },
  );
  const list = (params: Record<string, unknown>) =>
    connection.agent.request<ListSessionsResponse>('session/list', params);
  return { init, list, bridge };
}

function stored(count: number, cwd: string, prefix: string): SessionSummary[] {
  return Array.from({ length: count }, (_, index) => ({
    nativeSessionId: `${prefix}-${index}`,
    cwd,
    title: `${prefix} ${index}`,
    updatedAt: 1_700_000_000_000 + index,
  }));
}

describe('AcpBridge session/list', () => {
  it('is advertised where the adapter lists, serves the cwd filter, and pages to the end', async () => {
    const harness = new ListingHarness([...stored(SESSION_PAGE_SIZE + 5, '/work', 'w'), ...stored(2, '/other', 'o')]);
    const { init, list } = await joined(harness);
    expect(init.agentCapabilities.sessionCapabilities).toMatchObject({ list: {} });
    expect(init.agentCapabilities.sessionCapabilities).not.toHaveProperty('delete');
    const first = await list({ cwd: '/work' });
    expect(harness.asked).toEqual(['/work']);
    expect(first.sessions).toHaveLength(SESSION_PAGE_SIZE);
    expect(first.sessions[0]).toMatchObject({ sessionId: `w-${SESSION_PAGE_SIZE + 4}`, cwd: '/work' });
    const second = await list({ cwd: '/work', cursor: first.nextCursor });
    expect(second.sessions).toHaveLength(5);
    expect(second.nextCursor ?? undefined).toBeUndefined();
    const ids = [...first.sessions, ...second.sessions].map((session) => session.sessionId);
    expect(new Set(ids).size).toBe(SESSION_PAGE_SIZE + 5);
    expect(ids.some((id) => id.startsWith('o-'))).toBe(false);
  });

  it('without a cwd lists every folder it knows (its own, the records’), under the recorded ids', async () => {
    const harness = new ListingHarness([
      ...stored(1, '/bridge-cwd', 'b'),
      ...stored(1, '/recorded', 'r'),
      ...stored(1, '/unknown', 'u'),
    ]);
    const records = memoryRecords();
    await records.put({
      id: 'reins-7',
      nativeSessionId: 'r-0',
      cwd: '/recorded',
      createdAtMs: 1,
      updatedAtMs: 2,
      turns: [],
    });
    const { list } = await joined(harness, records);
    const page = await list({});
    expect(harness.asked).toContain(undefined);
    expect(harness.asked).toContain('/recorded');
    expect(page.sessions.map((session) => session.sessionId).sort()).toEqual(['b-0', 'reins-7']);
  });

  it('refuses a relative cwd and a foreign cursor with invalid params', async () => {
    const { list } = await joined(new ListingHarness(stored(3, '/work', 'w')));
    await expect(list({ cwd: 'work' })).rejects.toMatchObject({ code: -32602 });
    await expect(list({ cursor: 'not-ours' })).rejects.toMatchObject({ code: -32602 });
  });

  it('is not advertised and stays an unknown method where the adapter cannot list', async () => {
    const harness = new ListingHarness(stored(3, '/work', 'w'), { resume: true });
    const { init, list } = await joined(harness);
    expect(init.agentCapabilities.sessionCapabilities).not.toHaveProperty('list');
    await expect(list({})).rejects.toMatchObject({ code: -32601 });
    expect(harness.asked).toEqual([]);
  });
});
