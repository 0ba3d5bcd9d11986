// fuzzyFileSearch: files and folders under the roots the client names whose paths match its query
// (fuzzy-match.ts), as Codex's `@` picker lists them. The walk is asynchronous (one readdir at a time,
// so a big tree never blocks the event loop) and capped; it skips `.git` and what the .gitignore files
// on the way ignore (ignore-rules.ts). A request carrying the cancellationToken of an earlier one
// cancels that one, which answers with no files, as Codex does while the user types. The experimental
// session form (fuzzyFileSearch/sessionStart, sessionUpdate, sessionStop) answers each update with
// fuzzyFileSearch/sessionUpdated then sessionCompleted to the client that owns the session.
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Client } from './clients.js';
import { RpcError } from './connection.js';
import { fuzzyMatch } from './fuzzy-match.js';
import { type IgnoreRule, isIgnored, parseIgnoreFile } from './ignore-rules.js';
import { ParamsError, requiredString } from './requests.js';
import { type FuzzyFileSearchResponse, type FuzzyFileSearchResult, RPC } from './wire.js';

type Params = Record<string, unknown>;

export interface SearchLimits {
  /** Results kept per root, best first. */
  results: number;
  /** Entries (files and folders) looked at per root before the walk stops. */
  entries: number;
}

export const DEFAULT_SEARCH_LIMITS: SearchLimits = { results: 50, entries: 100_000 };

/** The best matches of `query` under `root` (paths relative to it, `/`-separated). */
export async function searchRoot(
  root: string,
  query: string,
  limits: SearchLimits = DEFAULT_SEARCH_LIMITS,
  signal?: AbortSignal,
): Promise<FuzzyFileSearchResult[]> {
  let kept: FuzzyFileSearchResult[] = [];
  const trim = () => {
    kept.sort(byRank);
    kept = kept.slice(0, limits.results);
  };
  const folders: { path: string; rules: IgnoreRule[] }[] = [{ path: '', rules: [] }];
  let seen = 0;
  while (folders.length > 0 && seen < limits.entries && !signal?.aborted) {
    const folder = folders.shift() as { path: string; rules: IgnoreRule[] };
    const entries = await listFolder(join(root, folder.path));
    const rules = entries.some((entry) => entry.name === '.gitignore' && entry.isFile())
      ? [...folder.rules, ...(await ignoreFileRules(root, folder.path))]
      : folder.rules;
    for (const entry of entries) {
      if (entry.name === '.git' || seen >= limits.entries) continue;
      seen += 1;
      const path = folder.path === '' ? entry.name : `${folder.path}/${entry.name}`;
      // A symbolic link is listed but never followed (no loops, nothing outside the root).
      const isFolder = entry.isDirectory();
      if (isIgnored(rules, path, isFolder)) continue;
      if (isFolder) folders.push({ path, rules });
      const match = fuzzyMatch(query, path);
      if (!match) continue;
      kept.push({
        root,
        path,
        match_type: isFolder ? 'directory' : 'file',
        file_name: entry.name,
        score: match.score,
        indices: match.indices,
      });
      if (kept.length > limits.results * 4) trim();
    }
  }
  trim();
  return kept;
}

function byRank(a: FuzzyFileSearchResult, b: FuzzyFileSearchResult): number {
  return b.score - a.score || a.path.length - b.path.length || a.path.localeCompare(b.path);
}

/** A folder's entries; one that cannot be read (gone, no permission) has none. */
async function listFolder(path: string): Promise<Dirent[]> {
  try {
    return (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return [];
  }
}

async function ignoreFileRules(root: string, folder: string): Promise<IgnoreRule[]> {
  try {
    return parseIgnoreFile(await readFile(join(root, folder, '.gitignore'), 'utf8'), folder);
  } catch {
    return [];
  }
}

/** fuzzyFileSearch's params: the query and the roots (a relative root is taken from `cwd`). */
export function fileSearchParamsOf(
  params: Params,
  cwd: string,
): { query: string; roots: string[]; cancellationToken?: string } {
  if (typeof params.query !== 'string') throw new ParamsError('query', 'is required (the text to match).');
  const roots = params.roots;
  if (!Array.isArray(roots) || roots.some((root) => typeof root !== 'string' || root === '')) {
    throw new ParamsError('roots', 'is required (a list of folder paths to search).');
  }
  const token = params.cancellationToken;
  if (token !== undefined && token !== null && typeof token !== 'string') {
    throw new ParamsError('cancellationToken', 'must be a string.');
  }
  return {
    query: params.query,
    roots: (roots as string[]).map((root) => (isAbsolute(root) ? root : resolve(cwd, root))),
    ...(typeof token === 'string' ? { cancellationToken: token } : {}),
  };
}

interface SearchSession {
  roots: string[];
  /** The update being searched (a newer one cancels it). */
  running?: AbortController;
}

/** The fuzzyFileSearch handlers, in-flight requests by cancellationToken, and each client's sessions. */
export class FileSearches {
  private readonly running = new Map<string, AbortController>();
  // A session belongs to the connection that started it; a gone client's sessions go with it.
  private readonly sessions = new WeakMap<Client, Map<string, SearchSession>>();

  /** `cwd` is asked at each request (where relative roots are). */
  constructor(
    private readonly cwd: () => string,
    private readonly limits: SearchLimits = DEFAULT_SEARCH_LIMITS,
  ) {}

  handlers(): Record<string, (params: Params, client: Client) => Promise<unknown>> {
    return {
      fuzzyFileSearch: (params) => this.search(params),
      'fuzzyFileSearch/sessionStart': async (params, client) => {
        const sessionId = requiredString(params, 'sessionId');
        const { roots } = fileSearchParamsOf({ ...params, query: '' }, this.cwd());
        const owned = this.sessions.get(client) ?? new Map<string, SearchSession>();
        this.sessions.set(client, owned);
        owned.get(sessionId)?.running?.abort();
        owned.set(sessionId, { roots });
        return {};
      },
      'fuzzyFileSearch/sessionUpdate': async (params, client) => {
        const sessionId = requiredString(params, 'sessionId');
        if (typeof params.query !== 'string') throw new ParamsError('query', 'is required (the text to match).');
        const session = this.sessions.get(client)?.get(sessionId);
        if (!session) {
          throw new RpcError(RPC.invalidRequest, `fuzzy file search session not found: ${sessionId}`, { sessionId });
        }
        // The walk never throws (an unreadable folder counts as empty).
        void this.updateSession(client, sessionId, session, params.query).catch(() => {});
        return {};
      },
      'fuzzyFileSearch/sessionStop': async (params, client) => {
        const sessionId = requiredString(params, 'sessionId');
        this.sessions.get(client)?.get(sessionId)?.running?.abort();
        this.sessions.get(client)?.delete(sessionId);
        return {};
      },
    };
  }

  /** Searches one update of a session; a newer update or a stop cancels it before it reports. */
  private async updateSession(client: Client, sessionId: string, session: SearchSession, query: string) {
    session.running?.abort();
    const controller = new AbortController();
    session.running = controller;
    const found =
      query.trim() === ''
        ? []
        : await Promise.all(session.roots.map((root) => searchRoot(root, query, this.limits, controller.signal)));
    if (controller.signal.aborted) return;
    session.running = undefined;
    const notify = (method: string, params: unknown) => {
      if (!client.optedOut.has(method)) client.connection.notify(method, params);
    };
    notify('fuzzyFileSearch/sessionUpdated', { sessionId, query, files: found.flat().sort(byRank) });
    notify('fuzzyFileSearch/sessionCompleted', { sessionId });
  }

  async search(params: Params): Promise<FuzzyFileSearchResponse> {
    const { query, roots, cancellationToken } = fileSearchParamsOf(params, this.cwd());
    const controller = new AbortController();
    if (cancellationToken !== undefined) {
      this.running.get(cancellationToken)?.abort();
      this.running.set(cancellationToken, controller);
    }
    try {
      // An empty query lists nothing, as in Codex (the picker shows its hint instead).
      if (query.trim() === '') return { files: [] };
      const found = await Promise.all(roots.map((root) => searchRoot(root, query, this.limits, controller.signal)));
      if (controller.signal.aborted) return { files: [] };
      return { files: found.flat().sort(byRank) };
    } finally {
      if (cancellationToken !== undefined && this.running.get(cancellationToken) === controller) {
        this.running.delete(cancellationToken);
      }
    }
  }
}
