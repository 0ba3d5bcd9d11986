// The bridge as a process: ACP over stdin/stdout (one JSON-RPC message per line), diagnostics on
// stderr. It runs until stdin ends or a signal arrives, then closes every session, so no harness
// process outlives it; what a slow close leaves behind, the runtime's exit hook SIGKILLs when the
// process exits.
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { runUntilStopped, type StopReason } from '../lifecycle.js';
import { AcpBridge, type AcpBridgeOptions } from './agent.js';

export interface StdioBridgeOptions extends AcpBridgeOptions {
  stdin: Readable;
  stdout: Writable;
  /** How long closing the sessions may take at shutdown (ms). */
  shutdownGraceMs?: number;
}

export type { StopReason };

/** Serves ACP on the given stdio until the client goes away or a signal arrives; resolves after cleanup. */
export async function serveAcpStdio(options: StdioBridgeOptions): Promise<StopReason> {
  const bridge = new AcpBridge(options);
  const stream = ndJsonStream(
    Writable.toWeb(options.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(options.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = bridge.connect(stream);
  return runUntilStopped(
    connection.closed,
    () => bridge.close(),
    options.shutdownGraceMs ?? 2_500,
    (reason) => options.log?.(`shutting down (${reason}): closing ${bridge.sessionCount} session(s)`),
  );
}
