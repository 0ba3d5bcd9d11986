// Runs the Claude Code CLI that the Agent SDK asks for through our HarnessProcess (own process
// group, close ladder, stderr ring, frame tap) and hands the SDK the SpawnedProcess it expects.
// The bridge also keeps stdout honest for the SDK: a line that is not a JSON object (a crash dump,
// stray output) is reported to the adapter instead of reaching the SDK's parser. It does so without
// parsing the line itself (the SDK parses every line it gets, and a second JSON.parse per line was
// the bridge's main cost): see `classifyLine`. One frame it does read: Claude Code's own session
// state, which the SDK would keep to itself (`handOverSessionState`).
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import { type FrameTap, HarnessProcess, LineSplitter, type ProcessFault } from '../runtime/index.js';
import { isTooDeepToParse, tooDeepMarker } from '../runtime/json-depth.js';

export interface BridgeHooks {
  label: string;
  tap?: FrameTap;
  /**
   * A stdout line that is not JSON, or nests too deep to parse (then a marker stands for it): the
   * adapter reports it (passthrough), the SDK never sees it.
   */
  onGarbage: (shown: unknown) => void;
  /** A stdout line over the limit was skipped, or the line handler threw (the child is then stopped). */
  onFault?: (fault: ProcessFault) => void;
}

/** Lines longer than this are followed by a blank line for the SDK (see `toSdk`). */
const RELEASE_AFTER_CHARS = 4096;

export class SdkProcessBridge extends EventEmitter implements SpawnedProcess {
  readonly stdin: Writable;
  readonly stdout = new PassThrough();
  readonly process: HarnessProcess;

  constructor(options: SpawnOptions, hooks: BridgeHooks) {
    super();
    this.process = HarnessProcess.launch({
      command: options.command,
      args: options.args,
      cwd: options.cwd ?? process.cwd(),
      env: options.env,
      label: hooks.label,
      harness: 'claude-code',
      ...(hooks.tap ? { tap: hooks.tap } : {}),
    });
    const child = this.process;
    if (hooks.onFault) child.onFault(hooks.onFault);
    child.onLine((line) => {
      const verdict = classifyLine(line);
      if (verdict === 'object') this.toSdk(handOverSessionState(line));
      else if (verdict === 'padded-object') this.toSdk(handOverSessionState(line.trim()));
      else if (verdict === 'garbage') hooks.onGarbage(line);
      else if (verdict === 'too-deep') hooks.onGarbage(tooDeepMarker(line));
    });
    const splitter = new LineSplitter((line) => {
      child.writeLine(line.toString());
    });
    this.stdin = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        callback();
      },
      final(callback) {
        splitter.flush();
        // The SDK is done with the CLI: end it (stdin end, then SIGTERM, then SIGKILL on the group).
        void child.close();
        callback();
      },
    });
    child.started.catch((error: unknown) => this.emit('error', error));
    void child.exited.then(async (info) => {
      await Promise.race([child.outputEnded, new Promise((resolve) => setTimeout(resolve, 500))]);
      this.stdout.end();
      this.emit('exit', info.code, info.signal);
    });
  }

  /**
   * One line for the SDK. The Agent SDK's reader (0.3.333, `readMessages`) keeps the last line it
   * read until the next one arrives, so an idle session held its largest line, the ~20 KB initialize
   * answer, for as long as it idled: a long line is followed by a blank one, which the SDK skips
   * (`if (line.trim())`) and which lets the long one go.
   */
  private toSdk(line: string): void {
    this.stdout.write(line.length > RELEASE_AFTER_CHARS ? `${line}\n\n` : `${line}\n`);
  }

  get killed(): boolean {
    return this.process.hasExited && this.process.exitStatus?.signal !== null;
  }

  get exitCode(): number | null {
    return this.process.exitStatus?.code ?? null;
  }

  get signalCode(): NodeJS.Signals | null {
    return this.process.exitStatus?.signal ?? null;
  }

  kill(signal: NodeJS.Signals): boolean {
    return this.process.killGroup(signal);
  }
}

/**
 * Claude Code 2.1.332 reports its own state in `system/session_state_changed` (`state: running | idle |
 * requires_action`) marked `sdk_host_only: true`, and the Agent SDK 0.3.332 drops frames so marked
 * after reading them itself (it ends its runs on `idle`). Reins wants that state for `session.status`
 * (status.ts), in order with every other frame: the mark is taken off so the SDK hands the frame on;
 * the SDK reads the same frame either way. So the `native` frame Reins shows lacks `sdk_host_only`;
 * the tap (fixtures) has the line as the CLI wrote it. Only lines naming the subtype are parsed here.
 * 2.1.197 has no such frame.
 */
export function handOverSessionState(line: string): string {
  // A state frame is ~220 bytes (2.1.332): long lines (messages, tool output) are not even scanned.
  if (line.length > STATE_FRAME_MAX || !line.includes('"session_state_changed"')) return line;
  let frame: unknown;
  try {
    frame = JSON.parse(line);
  } catch {
    return line;
  }
  if (!isHostOnlyState(frame)) return line;
  const { sdk_host_only: _mark, ...handedOn } = frame;
  return JSON.stringify(handedOn);
}

const STATE_FRAME_MAX = 4096;

function isHostOnlyState(frame: unknown): frame is Record<string, unknown> {
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return false;
  const record = frame as Record<string, unknown>;
  return record.type === 'system' && record.subtype === 'session_state_changed' && record.sdk_host_only === true;
}

/**
 * What a stdout line is, for the SDK, without parsing it where that can be avoided.
 *
 * Claude Code writes every stream-json line with JSON.stringify: `{"` ... `}` with nothing around it.
 * Such a line goes to the SDK as it is, unparsed here (the SDK parses it anyway). Every other line
 * that starts with `{` once trimmed (spaces, pretty or hand-written JSON) is parsed here to decide;
 * any other line is garbage. The one case this lets through to the SDK unreported is a line of the
 * `{"...}` shape that is not JSON (two writes interleaved, say): the Agent SDK 0.3.332 skips a line
 * it cannot parse (into its debug log, `Non-JSON stdout`), so it costs that line's passthrough,
 * never the session. util.inspect output (`{ a: 1 }`, what a stray console.log prints) starts with
 * `{ ` and is parsed, so it is still reported.
 */
export function classifyLine(line: string): 'object' | 'padded-object' | 'blank' | 'garbage' | 'too-deep' {
  // The SDK would parse it on the event loop every session shares (runtime/json-depth.ts).
  if (isTooDeepToParse(line)) return 'too-deep';
  const last = line.length - 1;
  if (last >= 1 && line.charCodeAt(0) === OPEN_BRACE && line.charCodeAt(last) === CLOSE_BRACE) {
    const second = line.charCodeAt(1);
    if (second === QUOTE || (last === 1 && second === CLOSE_BRACE)) return 'object';
  }
  const trimmed = line.trim();
  if (trimmed === '') return 'blank';
  if (trimmed.charCodeAt(0) !== OPEN_BRACE) return 'garbage';
  try {
    JSON.parse(trimmed);
  } catch {
    return 'garbage';
  }
  return trimmed.length === line.length ? 'object' : 'padded-object';
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
