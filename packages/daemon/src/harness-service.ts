// The daemon as a UI's whole backend, for the harnesses it runs itself (ui-backend.ts): the catalog
// (models with their efforts and default, the capability matrix with its evidence), cached per
// binary fingerprint (path + version + sha256: a new binary is a new entry); the conversations a
// harness keeps on disk (listSessions, newest first, paged) and their history as items, with every
// user message classified by core's system-text registry; sign-in (auth-ceremonies.ts); and a
// session's fork (a new daemon session whose spec resumes the conversation with `fork`) and MCP
// status (the live harness's own report).

import {
  type CapabilityMatrix,
  classifyUserMessage,
  type Harness,
  type HarnessId,
  type Item,
  type McpServerStatus,
  type ModelInfo,
  ReinsError,
  type SessionSummary,
} from '@reins/core';
import type { AnyHarnessOptions } from '@reins/harnesses';
import type {
  AuthCeremonyInfo,
  AuthStatus,
  HarnessListing,
  HarnessSessionsParams,
  SessionCreateResult,
} from '@reins/protocol';
import { HARNESS_AUTH_CHANGED, HARNESS_SESSIONS_PAGE } from '@reins/protocol';
import { AuthCeremonies } from './auth-ceremonies.js';
import { ProbeMemory, probeHarness } from './harness-probe.js';
import type { Logger } from './logger.js';
import type { HarnessFactory, SessionHost } from './session-host.js';
import type { UiBackend } from './ui-backend.js';

export interface HarnessServiceOptions {
  host: SessionHost;
  createHarness: HarnessFactory;
  harnessOptions: Partial<Record<HarnessId, AnyHarnessOptions>>;
  log: Logger;
  /** Sends a notification to every version 2 client. */
  broadcast(method: string, params: unknown): void;
  /** Deadline of each probe a harness/list answer waits for (ms). */
  probeTimeoutMs: number;
  authPollMs?: number;
  authTimeoutMs?: number;
}

/** How long harness/list reuses a sign-in check (some, like an ACP agent's, start a process). */
const LISTED_AUTH_TTL_MS = 60_000;

interface CatalogEntry {
  fingerprint: string;
  models?: Promise<ModelInfo[]>;
  capabilities?: Promise<CapabilityMatrix>;
}

const unsupported = (harness: HarnessId, what: string, operation: string) =>
  new ReinsError('unsupported_capability', `The ${harness} harness has no ${what} Reins can read.`, {
    harness,
    operation,
  });

export class HarnessService implements UiBackend {
  private readonly harnesses = new Map<HarnessId, Promise<Harness>>();
  private readonly catalog = new Map<HarnessId, CatalogEntry>();
  /** The last sign-in check harness/list showed, per binary; dropped when the state changes. */
  private readonly listedAuth = new Map<HarnessId, { fingerprint: string; at: number; status: AuthStatus }>();
  private readonly checkingAuth = new Map<HarnessId, Promise<AuthStatus>>();
  private readonly ceremonies: AuthCeremonies;
  /** harness/list's discovery and health, remembered for the daemon's life (harness-probe.ts). */
  private readonly listings: ProbeMemory;

  constructor(private readonly options: HarnessServiceOptions) {
    this.listings = new ProbeMemory((id) => probeHarness(id, options.harnessOptions[id] ?? {}, options.probeTimeoutMs));
    this.ceremonies = new AuthCeremonies({
      log: options.log,
      changed: (params) => {
        this.listedAuth.delete(params.harness);
        this.checkingAuth.delete(params.harness);
        this.listings.forget(params.harness); // its health said auth_required (or ready) until now
        options.broadcast(HARNESS_AUTH_CHANGED, params);
      },
      ...(options.authPollMs !== undefined ? { pollMs: options.authPollMs } : {}),
      ...(options.authTimeoutMs !== undefined ? { timeoutMs: options.authTimeoutMs } : {}),
    });
  }

  // ---- catalog ------------------------------------------------------------------------------------

  models(harness: HarnessId): Promise<ModelInfo[]> {
    return this.cached(harness, 'models', async (adapter) => {
      if (!adapter.models) throw unsupported(harness, 'model catalog', 'models');
      return adapter.models();
    });
  }

  capabilities(harness: HarnessId): Promise<CapabilityMatrix> {
    return this.cached(harness, 'capabilities', (adapter) => adapter.capabilities());
  }

  /** One entry per binary: a new fingerprint (an upgraded CLI) drops what the old one answered. */
  private async cached<K extends 'models' | 'capabilities'>(
    harness: HarnessId,
    key: K,
    read: (adapter: Harness) => NonNullable<CatalogEntry[K]>,
  ): Promise<Awaited<NonNullable<CatalogEntry[K]>>> {
    const adapter = await this.harness(harness);
    const fingerprint = await this.fingerprint(adapter);
    let entry = this.catalog.get(harness);
    if (!entry || entry.fingerprint !== fingerprint) {
      entry = { fingerprint };
      this.catalog.set(harness, entry);
    }
    const pending = entry[key] ?? read(adapter);
    entry[key] = pending;
    try {
      return (await pending) as Awaited<NonNullable<CatalogEntry[K]>>;
    } catch (error) {
      // A failure is not cached: the next ask tries again.
      if (entry[key] === pending) delete entry[key];
      throw error;
    }
  }

  private async fingerprint(adapter: Harness): Promise<string> {
    const discovery = await adapter.discover();
    if (!discovery.found) return 'not-found';
    const { path, version, sha256 } = discovery.binary;
    return `${path}\u0000${version ?? ''}\u0000${sha256}`;
  }

  // ---- conversations the harness keeps ------------------------------------------------------------

  async harnessSessions(params: HarnessSessionsParams): Promise<SessionSummary[]> {
    const adapter = await this.harness(params.harness);
    if (!adapter.listSessions) throw unsupported(params.harness, 'session list', 'sessions');
    const all = await adapter.listSessions(params.cwd !== undefined ? { cwd: params.cwd } : {});
    const newestFirst = [...all].sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
    const offset = params.offset ?? 0;
    return newestFirst.slice(offset, offset + (params.limit ?? HARNESS_SESSIONS_PAGE.default));
  }

  async history(harness: HarnessId, nativeSessionId: string, cwd: string | undefined): Promise<Item[]> {
    const adapter = await this.harness(harness);
    if (!adapter.history) throw unsupported(harness, 'history', 'history');
    const items = await adapter.history(nativeSessionId, cwd !== undefined ? { cwd } : {});
    // Machinery a harness left in user-role text is classified here too (adapters may already have).
    return items.map((item) => (item.kind === 'user_message' ? classifyUserMessage(item) : item));
  }

  // ---- sign-in ------------------------------------------------------------------------------------

  async authStatus(harness: HarnessId): Promise<AuthStatus> {
    const adapter = await this.harness(harness);
    const ceremonyId = this.ceremonies.ceremonyOf(harness);
    const base = { harness, ...(ceremonyId ? { ceremonyId } : {}) };
    if (!adapter.auth) {
      const health = await adapter.health().catch(() => undefined);
      return {
        ...base,
        status: health?.status === 'auth_required' ? 'signed_out' : 'unknown',
        message: `Reins has no sign-in check for ${harness}.`,
        ...(health?.fix ? { command: health.fix } : {}),
      };
    }
    const probe = await adapter.auth.status();
    this.ceremonies.observed(harness, probe);
    return {
      ...base,
      status: probe.status,
      ...(probe.account !== undefined ? { account: probe.account } : {}),
      ...(probe.methods !== undefined ? { methods: probe.methods } : {}),
      ...(probe.message !== undefined ? { message: probe.message } : {}),
      ...(adapter.auth.command !== undefined ? { command: adapter.auth.command } : {}),
    };
  }

  async login(harness: HarnessId, method: string | undefined): Promise<AuthCeremonyInfo> {
    const adapter = await this.harness(harness);
    if (!adapter.auth) {
      const health = await adapter.health().catch(() => undefined);
      throw new ReinsError(
        'unsupported_capability',
        `Reins cannot run the ${harness} sign-in itself${health?.fix ? `: ${health.fix}` : '; sign in with the harness’s own command'}.`,
        { harness, operation: 'login', ...(health?.fix ? { data: { command: health.fix } } : {}) },
      );
    }
    return this.ceremonies.start(harness, adapter.auth, method);
  }

  cancelLogin(ceremonyId: string): Promise<void> {
    return this.ceremonies.cancel(ceremonyId);
  }

  /** harness/list: each harness's discovery and health (remembered), with its sign-in state. */
  async list(ids: readonly HarnessId[]): Promise<HarnessListing[]> {
    return this.withAuth(await this.listings.list(ids));
  }

  async withAuth(listings: HarnessListing[]): Promise<HarnessListing[]> {
    return Promise.all(
      listings.map(async (listing) => {
        // Not installed: the check fails fast (or under the deadline) and the listing has no auth.
        const status = await withDeadline(this.listedAuthStatus(listing.id), this.options.probeTimeoutMs).catch(
          () => undefined,
        );
        if (!status) return listing;
        const { harness: _harness, ceremonyId: _ceremony, ...auth } = status;
        const ceremonyId = this.ceremonies.ceremonyOf(listing.id);
        return { ...listing, auth: { ...auth, ...(ceremonyId ? { ceremonyId } : {}) } };
      }),
    );
  }

  /** harness/list's sign-in state: a fresh check at most once a minute per binary, or after a change. */
  private async listedAuthStatus(harness: HarnessId): Promise<AuthStatus> {
    const fingerprint = await this.fingerprint(await this.harness(harness));
    const seen = this.listedAuth.get(harness);
    if (seen && seen.fingerprint === fingerprint && Date.now() - seen.at < LISTED_AUTH_TTL_MS) return seen.status;
    // Callers asking together share one check (each may start a process).
    let checking = this.checkingAuth.get(harness);
    if (!checking) {
      const at = Date.now();
      const check = this.authStatus(harness).then((status) => {
        this.listedAuth.set(harness, { fingerprint, at, status });
        return status;
      });
      checking = check.finally(() => {
        if (this.checkingAuth.get(harness) === checking) this.checkingAuth.delete(harness);
      });
      this.checkingAuth.set(harness, checking);
    }
    return checking;
  }

  // ---- sessions -----------------------------------------------------------------------------------

  async fork(sessionId: string): Promise<SessionCreateResult> {
    const source = this.options.host.get(sessionId);
    const params = source.forkParams();
    const matrix = await this.capabilities(params.harness).catch(() => undefined);
    if (matrix?.fork.implemented.state !== 'yes') {
      throw new ReinsError(
        'unsupported_capability',
        `The ${params.harness} harness cannot fork a conversation (its adapter has no fork).`,
        { harness: params.harness, operation: 'fork' },
      );
    }
    const forked = await this.options.host.create(params);
    return {
      sessionId: forked.id,
      harness: forked.harness,
      ...(forked.nativeSessionId !== undefined ? { nativeSessionId: forked.nativeSessionId } : {}),
    };
  }

  mcpStatus(sessionId: string): Promise<McpServerStatus[]> {
    return this.options.host.get(sessionId).mcpStatus();
  }

  async close(): Promise<void> {
    await this.ceremonies.close();
  }

  private harness(id: HarnessId): Promise<Harness> {
    let made = this.harnesses.get(id);
    if (!made) {
      made = this.options.createHarness(id, this.options.harnessOptions[id] ?? {});
      made.catch(() => this.harnesses.delete(id));
      this.harnesses.set(id, made);
    }
    return made;
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
