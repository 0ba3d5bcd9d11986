// The bridge as a process: the Codex app-server protocol on stdin/stdout (one JSON message per
// line), diagnostics on stderr. It runs until stdin ends or a signal arrives, then closes every
// thread, so no harness process outlives it; what a slow close leaves behind, the runtime's exit hook
// SIGKILLs when the process exits.
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from '@reins/harnesses';
import { runUntilStopped, type StopReason } from '../lifecycle.js';
import { CodexAppServerBridge, type CodexAppServerBridgeOptions } from './server.js';

export interface CodexStdioBridgeOptions extends CodexAppServerBridgeOptions {
  stdin: Readable;
  stdout: Writable;
  /** How long closing the threads may take at shutdown (ms). */
  shutdownGraceMs?: number;
}

export type CodexBridgeStopReason = StopReason;

/** Serves the Codex app-server protocol on the given stdio until the client goes away or a signal arrives. */
export async function serveCodexAppServerStdio(options: CodexStdioBridgeOptions): Promise<CodexBridgeStopReason> {
  const bridge = new CodexAppServerBridge(options);
  let writable = true;
  options.stdout.on('error', (error) => {
    // The client closed its end: nothing more can be said to it.
    writable = false;
    options.log?.(`stdout: ${error.message}`);
  });
  const { receive } = bridge.connect((line) => {
    if (writable) options.stdout.write(`${line}\n`);
  });
  const splitter = new LineSplitter(receive, undefined, (bytes) =>
    options.log?.(`dropped an input line of ${bytes} bytes (too long)`),
  );
  options.stdin.on('data', (chunk: Buffer | string) =>
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
  );
  const eof = new Promise<void>((resolve) => {
    options.stdin.on('end', () => {
      // A last request without its newline still counts (it is answered if the bridge can).
      splitter.flush();
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
  return reason;
}
