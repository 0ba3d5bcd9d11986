// The clients connected to one bridge (stdio: one; ws:// and unix://: any number, each its own
// connection), seen by the threads as one outbound channel. Threads are shared as Codex shares them:
// every initialized client hears every thread's notifications (less the ones it opted out of), and a
// server -> client request (an approval) goes to the client that connected last and is still there.
// Request ids come from one counter, so an id names one request across all connections.
import { reinsHome } from '@reins/harnesses';
import { RpcConnection, RpcError, type RpcId } from './connection.js';
import type { Outbound } from './thread.js';
import { CODEX_PROTOCOL_VERSION, type InitializeResponse, RPC } from './wire.js';

export interface Client {
  readonly connection: RpcConnection;
  initialized: boolean;
  optedOut: ReadonlySet<string>;
}

export class Clients implements Outbound {
  private readonly open = new Set<Client>();
  private readonly asked = new Map<RpcId, Client>();
  private nextId = 0;

  get size(): number {
    return this.open.size;
  }

  /** A new client; its connection numbers its requests from the shared counter. */
  add(options: Omit<ConstructorParameters<typeof RpcConnection>[0], 'nextId'>): Client {
    const connection = new RpcConnection({ ...options, nextId: () => this.nextId++ });
    const client: Client = { connection, initialized: false, optedOut: new Set() };
    this.open.add(client);
    return client;
  }

  /** The client went away: its pending requests fail (an approval it held counts as unanswered). */
  remove(client: Client, reason: Error): void {
    this.open.delete(client);
    client.connection.close(reason);
  }

  closeAll(reason: Error): void {
    for (const client of [...this.open]) this.remove(client, reason);
  }

  notify(method: string, params: unknown): void {
    for (const client of this.open) {
      if (client.initialized && !client.optedOut.has(method)) client.connection.notify(method, params);
    }
  }

  request(method: string, params: unknown, timeoutMs: number): { id: RpcId; answer: Promise<unknown> } {
    const client = [...this.open].reverse().find((open) => open.initialized) ?? [...this.open].at(-1);
    if (!client) {
      const id = this.nextId++;
      return { id, answer: Promise.reject(new Error('No client is connected to answer it.')) };
    }
    const asked = client.connection.request(method, params, timeoutMs);
    this.asked.set(asked.id, client);
    const settle = () => this.asked.delete(asked.id);
    asked.answer.then(settle, settle);
    return asked;
  }

  forget(id: RpcId, reason: string): void {
    this.asked.get(id)?.connection.forget(id, reason);
  }
}

/** A client's `initialize`: its notification opt-outs taken, the bridge's identity answered. */
export function initializeClient(
  client: Client,
  params: Record<string, unknown>,
  identity: { harness: string; harnessVersion?: string | undefined; version?: string | undefined },
): InitializeResponse {
  if (client.initialized) throw new RpcError(RPC.invalidRequest, 'Already initialized');
  const capabilities = params.capabilities;
  const optOut =
    typeof capabilities === 'object' && capabilities !== null
      ? (capabilities as { optOutNotificationMethods?: unknown }).optOutNotificationMethods
      : undefined;
  if (Array.isArray(optOut)) client.optedOut = new Set(optOut.filter((entry) => typeof entry === 'string'));
  client.initialized = true;
  const harness = identity.harnessVersion ? `${identity.harness} ${identity.harnessVersion}` : identity.harness;
  return {
    // Clients read the first version in the userAgent as the Codex version they talk to: the
    // protocol's. Reins' own version and the harness's follow.
    userAgent: `reins-bridge/${CODEX_PROTOCOL_VERSION} (reins ${identity.version ?? '0.1.0'}; ${harness})`,
    // The bridge keeps no Codex home; its own state folder is the honest answer.
    codexHome: reinsHome(),
    platformFamily: process.platform === 'win32' ? 'windows' : 'unix',
    platformOs: process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'windows' : process.platform,
  };
}
