// The bridge as a process: ACP over stdin/stdout (one JSON-RPC message per line), diagnostics on
// stderr. It runs until stdin ends or a signal arrives, then closes every session, so no harness
// process outlives it; what a slow close leaves behind, the runtime's exit hook SIGKILLs when the
// process exits.
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { AcpBridge, type AcpBridgeOptions } from './agent.js';

export interface StdioBridgeOptions extends AcpBridgeOptions {
  stdin: Readable;
  stdout: Writable;
  /** How long closing the sessions may take at shutdown (ms). */
  shutdownGraceMs?: number;
}

export type StopReason = 'eof' | NodeJS.Signals;

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/** Serves ACP on the given stdio until the client goes away or a signal arrives; resolves after cleanup. */
export async function serveAcpStdio(options: StdioBridgeOptions): Promise<StopReason> {
  const bridge = new AcpBridge(options);
  const stream = ndJsonStream(
    Writable.toWeb(options.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(options.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = bridge.connect(stream);
  const handlers = new Map<NodeJS.Signals, () => void>();
  const reason = await new Promise<StopReason>((resolve) => {
    void connection.closed.then(() => resolve('eof'));
    for (const signal of SIGNALS) {
      const handler = () => resolve(signal);
      handlers.set(signal, handler);
      process.on(signal, handler);
    }
  });
  options.log?.(`shutting down (${reason}): closing ${bridge.sessionCount} session(s)`);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    bridge.close(),
    new Promise((resolve) => {
      timer = setTimeout(resolve, options.shutdownGraceMs ?? 2_500);
    }),
  ]);
  clearTimeout(timer);
  for (const [signal, handler] of handlers) process.off(signal, handler);
  return reason;
}
