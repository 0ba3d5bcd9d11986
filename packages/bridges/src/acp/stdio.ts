// The bridge as a process: ACP over stdin/stdout (one JSON-RPC message per line), diagnostics on
// stderr. It runs until stdin ends or a signal arrives, then closes every session, so no harness
// process outlives it; what a slow close leaves behind, the runtime's exit hook SIGKILLs when the
// process exits. The line framing is the bridges' own (runtime/lines.ts in @reins/harnesses, framing.ts), not the SDK's: a line too long to
// take is answered with a JSON-RPC error naming its size (or skipped with a line on the log when its
// id cannot be read), and the bridge goes on; a line that is not JSON gets -32700.
import type { Readable, Writable } from 'node:stream';
import type { Stream } from '@agentclientprotocol/sdk/unstable';
import { LineSplitter } from '@reins/harnesses';
import { DEFAULT_MAX_LINE_BYTES, leadingId } from '../framing.js';
import { runUntilStopped, type StopReason } from '../lifecycle.js';
import { AcpBridge, type AcpBridgeOptions } from './agent.js';
import type { AnyMessage } from './wire.js';

export interface StdioBridgeOptions extends AcpBridgeOptions {
  stdin: Readable;
  stdout: Writable;
  /** How long closing the sessions may take at shutdown (ms). */
  shutdownGraceMs?: number;
  /** The longest input line taken (default 64 MiB). */
  maxLineBytes?: number;
}

export type { StopReason };

/** ndjson on the given stdio as an SDK Stream, with bounded lines (see the header). */
export function acpStdioStream(options: {
  stdin: Readable;
  stdout: Writable;
  maxLineBytes?: number;
  log?: (message: string) => void;
}): { stream: Stream; ended: Promise<void> } {
  const log = options.log ?? (() => {});
  let writable = true;
  options.stdout.on('error', (error) => {
    writable = false;
    log(`stdout: ${error.message}`);
  });
  const writeLine = (message: unknown) => {
    if (!writable) return;
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      log(`could not write a message: ${String(error)}`);
      return;
    }
    options.stdout.write(`${line}\n`);
  };
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let ended: () => void = () => {};
  const endedPromise = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      let closed = false;
      const reader = new LineSplitter(
        (line) => {
          if (line.trim() === '' || closed) return;
          let message: unknown;
          try {
            message = JSON.parse(line);
          } catch (error) {
            writeLine({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32700, message: `Parse error: ${(error as Error).message}` },
            });
            return;
          }
          controller.enqueue(message as AnyMessage);
        },
        max,
        (bytes, prefix) => {
          const id = leadingId(prefix);
          if (id === undefined) {
            log(`skipped an input line of ${bytes} bytes (over ${max}); it named no id to answer`);
            return;
          }
          writeLine({
            jsonrpc: '2.0',
            id,
            error: {
              code: -32600,
              message: `Invalid request: the message is ${bytes} bytes, over the ${max} this agent takes.`,
            },
          });
        },
      );
      options.stdin.on('data', (chunk: Buffer | string) =>
        reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
      );
      const finish = () => {
        if (closed) return;
        reader.flush();
        closed = true;
        controller.close();
        ended();
      };
      options.stdin.on('end', finish);
      options.stdin.on('close', finish);
      options.stdin.on('error', finish);
    },
  });
  const output = new WritableStream<AnyMessage>({ write: (message) => writeLine(message) });
  return { stream: { readable, writable: output }, ended: endedPromise };
}

/** Serves ACP on the given stdio until the client goes away or a signal arrives; resolves after cleanup. */
export async function serveAcpStdio(options: StdioBridgeOptions): Promise<StopReason> {
  const bridge = new AcpBridge(options);
  const { stream, ended } = acpStdioStream(options);
  const connection = bridge.connect(stream);
  const reason = await runUntilStopped(
    Promise.race([connection.closed, ended]),
    () => bridge.close(),
    options.shutdownGraceMs ?? 2_500,
    (stop) => options.log?.(`shutting down (${stop}): closing ${bridge.sessionCount} session(s)`),
  );
  options.stdin.pause();
  return reason;
}
