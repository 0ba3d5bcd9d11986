// The bridge as a process: the Codex app-server protocol on stdin/stdout (one JSON message per
// line), diagnostics on stderr. It runs until stdin ends or a signal arrives, then closes every
// thread, so no harness process outlives it; what a slow close leaves behind, the runtime's exit hook
// SIGKILLs when the process exits. A line too long to take is answered with a JSON-RPC error naming
// its size (or, when its id cannot be read, skipped with a line on the log); the bridge goes on.
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from '@reins/harnesses';
import { DEFAULT_MAX_LINE_BYTES, leadingId } from '../framing.js';
import { runUntilStopped, type StopReason } from '../lifecycle.js';
import { JoinedLines } from './joined-lines.js';
import { CodexAppServerBridge, type CodexAppServerBridgeOptions } from './server.js';
import { RPC } from './wire.js';

export interface CodexStdioBridgeOptions extends CodexAppServerBridgeOptions {
  stdin: Readable;
  stdout: Writable;
  /** How long closing the threads may take at shutdown (ms). */
  shutdownGraceMs?: number;
  /** The longest input line taken (default 64 MiB). */
  maxLineBytes?: number;
}

export type CodexBridgeStopReason = StopReason;

/** Serves the Codex app-server protocol on the given stdio until the client goes away or a signal arrives. */
export async function serveCodexAppServerStdio(options: CodexStdioBridgeOptions): Promise<CodexBridgeStopReason> {
  const bridge = new CodexAppServerBridge(options);
  // The client closed its end: nothing more can be said to it.
  const stdout = new JoinedLines(options.stdout, (error) => options.log?.(`stdout: ${error.message}`));
  const { receive, connection } = bridge.connect((line) => stdout.write(line));
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const reader = new LineSplitter(receive, max, (bytes, prefix) => {
    const id = leadingId(prefix);
    if (id === undefined) {
      options.log?.(`skipped an input line of ${bytes} bytes (over ${max}); it named no id to answer`);
      return;
    }
    connection.refuse(
      id,
      RPC.invalidRequest,
      `Invalid request: the message is ${bytes} bytes, over the ${max} this bridge takes.`,
    );
  });
  options.stdin.on('data', (chunk: Buffer | string) =>
    reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
  );
  const eof = new Promise<void>((resolve) => {
    options.stdin.on('end', () => {
      // A last request without its newline still counts (it is answered if the bridge can).
      reader.flush();
      resolve();
    });
    options.stdin.on('close', () => resolve());
    options.stdin.on('error', () => resolve());
  });
  const reason = await runUntilStopped(
    eof,
    () => bridge.close(),
    options.shutdownGraceMs ?? 2_500,
    (stop) => options.log?.(`shutting down (${stop}): closing ${bridge.threadCount} thread(s)`),
  );
  options.stdin.pause();
  // What the shutdown said (thread/closed) goes out before the caller may exit.
  stdout.flush();
  return reason;
}
