// `reins bridge --daemon`: finds the Reins daemon of this REINS_HOME (its daemon.json: url and token),
// connects to it, and hands the bridge a Harness whose sessions open there, on the daemon's warm
// processes (docs/architecture/bridges.md, "Sessions in a daemon"). Loaded only with --daemon.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { daemonHarness } from '@reins/bridges';
import { connect, DAEMON_FILE, DaemonInfoSchema, type ReinsClient, type WebSocketConstructor } from '@reins/client';
import { type Harness, type HarnessId, ReinsError } from '@reins/core';
import { harnessManifest } from '@reins/harnesses';
import { REINS_VERSION } from '../version.js';

/** The reason (`data.reason`) every "no daemon to use" refusal carries. */
export const DAEMON_UNREACHABLE = 'daemon_unreachable';

export interface DaemonHarness {
  harness: Harness;
  /** Ends the connection; the bridge has closed its daemon sessions by then. */
  close(): void;
}

const LEAVE_OUT = 'leave out --daemon to run the harness inside the bridge';

function unreachable(home: string, sentence: string): ReinsError {
  return new ReinsError('invalid_input', `${sentence}: start one with \`reins daemon\`, or ${LEAVE_OUT}.`, {
    data: { reason: DAEMON_UNREACHABLE, home },
  });
}

/** Node 20 has no global WebSocket: take the ws package @reins/bridges depends on. */
function webSocketClass(): WebSocketConstructor {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return global;
  const fromBridges = createRequire(import.meta.resolve('@reins/bridges'));
  return (fromBridges('ws') as { WebSocket: WebSocketConstructor }).WebSocket;
}

/**
 * daemon.json read here rather than through @reins/daemon (its module graph is the daemon's: store,
 * server, console), which a bridge's start would pay for one file. The token is passed on, never shown.
 */
async function daemonInfo(home: string) {
  let text: string;
  try {
    text = await readFile(join(home, DAEMON_FILE), 'utf8');
  } catch {
    throw unreachable(home, `No Reins daemon runs for ${home} (no ${DAEMON_FILE})`);
  }
  let parsed: ReturnType<typeof DaemonInfoSchema.safeParse> | undefined;
  try {
    parsed = DaemonInfoSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) throw unreachable(home, `${join(home, DAEMON_FILE)} is not a Reins daemon file`);
  return parsed.data;
}

export async function openDaemonHarness(
  id: HarnessId,
  home: string,
  requestTimeoutMs: number | undefined,
): Promise<DaemonHarness> {
  const info = await daemonInfo(home);
  let client: ReinsClient;
  try {
    client = await connect({
      url: info.url,
      token: info.token,
      WebSocket: webSocketClass(),
      client: { name: 'reins bridge', version: REINS_VERSION },
      // A bridge speaks ACP or Codex's protocol to its client: the harness's native frames mean
      // nothing there, so they do not cross the daemon's socket (about half of each event's bytes).
      nativeFrames: false,
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    });
  } catch (error) {
    // The client's sentence names the url and what to check (never the token).
    const why = error instanceof Error ? error.message : String(error);
    throw new ReinsError('invalid_input', `--daemon: ${why} Or ${LEAVE_OUT}.`, {
      data: { reason: DAEMON_UNREACHABLE, home, url: info.url },
    });
  }
  const displayName = harnessManifest(id)?.displayName ?? id;
  return { harness: daemonHarness(client, { id, displayName }), close: () => client.close() };
}
