// The one place harness child processes are spawned and ended. Each child gets its own process
// group so that closing it also ends what it spawned (shells, tools); close goes stdin end ->
// SIGTERM -> SIGKILL on the group, each step with a grace period; and every live child is killed
// if the Reins process itself exits, so no orphan survives.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { ReinsError } from '@reins/core';
import { type Confinement, confinedArgv } from './confinement.js';
import { LineSplitter } from './lines.js';
import { TextRing } from './ring.js';

export interface SpawnSpec {
  command: string;
  args: string[];
  cwd: string;
  /** The complete environment of the child (callers merge the user's environment themselves). */
  env: Record<string, string | undefined>;
  /** For error messages: 'codex app-server'. */
  label: string;
  /** Harness id, carried on errors. */
  harness?: string;
  /** Sees every line in both directions (the fixture recorder, debugging). */
  tap?: FrameTap;
  /** Posture `workspace` without a sandbox of the harness's own: run it under bubblewrap (confinement.ts). */
  confine?: Confinement;
  /**
   * A line written to stdin as the child starts (Codex's `initialize`: its answer is read while the rest
   * starts up). A child the `reins` executable prestarted wrote it already: it is claimed only with the
   * same line.
   */
  firstLine?: string;
}

/** in: Reins -> harness stdin; out: harness stdout; err: harness stderr chunks. */
export type FrameTap = (direction: 'in' | 'out' | 'err', text: string) => void;

/** Something went wrong with the child's output that its session should hear about. */
export type ProcessFault =
  | { kind: 'oversize_line'; bytes: number }
  /** The session's own line handler threw: the session cannot trust its state, the process is stopped. */
  | { kind: 'handler_error'; error: unknown };

/** Lines a child with a first line may send before its reader is set (its answer, a notice or two). */
const UNHANDLED_LINES = 64;

/** The longest stdout line accepted; longer lines are skipped whole and reported. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CloseOptions {
  /** Time to exit on its own after stdin ends (ms). */
  stdinGraceMs?: number;
  /** Time to exit after SIGTERM before SIGKILL (ms). */
  termGraceMs?: number;
}

const live = new Set<HarnessProcess>();
let exitHookInstalled = false;

/** Hears of every harness child started here (its own process group: pgid = pid) and of its exit. */
export interface HarnessProcessObserver {
  started(child: { pid: number; label: string; harness?: string }): void;
  exited(child: { pid: number }): void;
}
const observers = new Set<HarnessProcessObserver>();

/** Adds an observer (the daemon records process groups to reap after a crash); returns its remover. */
export function observeHarnessProcesses(observer: HarnessProcessObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

function tellObservers(notify: (observer: HarnessProcessObserver) => void): void {
  for (const observer of observers) {
    try {
      notify(observer);
    } catch {
      // an observer's failure is its own; the child runs on
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: SIGKILL every group we still own.
  process.on('exit', () => {
    for (const child of live) child.killGroup('SIGKILL');
  });
}

export class HarnessProcess {
  readonly stderr = new TextRing();
  readonly exited: Promise<ExitInfo>;
  /** Resolves when stdout closed and its last line went to the handler (exit can come first). */
  readonly outputEnded: Promise<void>;
  /** Resolves once the child runs; rejects like `start` when it cannot start. */
  readonly started: Promise<void>;
  private exitInfo: ExitInfo | undefined;
  private readonly child: ChildProcess;
  private lineHandler: ((line: string) => void) | undefined;
  /**
   * With a first line: the lines that came before onLine (its answer may wait in a prestarted child's
   * pipe), at most UNHANDLED_LINES. Without one nothing is kept (a gateway nobody reads logs on stdout).
   */
  private unhandled: string[] | undefined;
  private faultHandler: (fault: ProcessFault) => void = () => {};
  /** Why Reins stopped the child itself (a handler error), for describeExit. */
  private stoppedBecause: string | undefined;
  private closing: Promise<ExitInfo> | undefined;

  private constructor(
    readonly spec: SpawnSpec,
    child: ChildProcess,
    started: Promise<void>,
    /** Handed over from the `reins` executable (it may have started, failed or ended before this object). */
    early?: PrestartedChild,
  ) {
    this.child = child;
    this.started = started;
    if (spec.firstLine !== undefined) this.unhandled = [];
    const tap = spec.tap;
    const splitter = new LineSplitter(
      (line) => {
        tap?.('out', line);
        this.deliver(line);
      },
      MAX_LINE_BYTES,
      (bytes) => this.fault({ kind: 'oversize_line', bytes }),
    );
    child.stdout?.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stdout?.on('end', () => splitter.flush());
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      this.stderr.push(text);
      tap?.('err', text);
    });
    // Writes after the child died raise EPIPE on stdin: the exit path reports it, not a crash.
    child.stdin?.on('error', () => {});
    this.outputEnded = new Promise((resolve) => {
      // (A prestarted child's stdout may have ended and closed, empty, before it was handed over.)
      if (!child.stdout || child.stdout.closed) return resolve();
      child.stdout.once('close', () => {
        splitter.flush();
        resolve();
      });
    });
    // A prestarted child's stderr so far goes to the ring now (read() hands it to the listener above):
    // its exit may be described before the stream flows again.
    if (early) child.stderr?.read();
    this.exited = new Promise((resolve) => {
      const settle = (info: ExitInfo) => {
        if (this.exitInfo) return;
        this.exitInfo = info;
        live.delete(this);
        const pid = child.pid;
        if (pid !== undefined) tellObservers((observer) => observer.exited({ pid }));
        resolve(info);
      };
      child.once('exit', (code, signal) => settle({ code, signal }));
      // A child that never started (ENOENT) emits no 'exit': settle so nobody waits forever.
      child.once('error', () => {
        if (child.pid === undefined) settle({ code: null, signal: null });
      });
      // A prestarted child may have ended, or failed to start, before it was handed over.
      // (One that never started has an errno for exitCode: reported as a spawn failure is, above.)
      if (early?.error && child.pid === undefined) settle({ code: null, signal: null });
      else if (child.exitCode !== null || child.signalCode !== null) {
        settle({ code: child.exitCode, signal: child.signalCode });
      }
    });
  }

  /** Spawns the child; rejects with binary_not_found / harness_unhealthy when it cannot start. */
  static async start(spec: SpawnSpec): Promise<HarnessProcess> {
    const process_ = HarnessProcess.launch(spec);
    await process_.started;
    return process_;
  }

  /**
   * Spawns the child and returns at once, for callers that must hand a process over synchronously
   * (the Agent SDK's spawnClaudeCodeProcess hook); `started` says whether it really started.
   */
  static launch(spec: SpawnSpec): HarnessProcess {
    installExitHook();
    const early = spec.confine ? undefined : claimPrestarted(spec);
    const { command, args } = spec.confine ? confine(spec, spec.confine) : spec;
    const child =
      early?.child ??
      spawn(command, args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
    const started = new Promise<void>((resolve, reject) => {
      const fail = (error: NodeJS.ErrnoException) => {
        const code = error.code === 'ENOENT' ? 'binary_not_found' : 'harness_unhealthy';
        reject(
          new ReinsError(code, `Could not start ${spec.label} (${spec.command}): ${error.message}`, {
            harness: spec.harness,
            operation: 'spawn',
            cause: error,
          }),
        );
      };
      if (early?.error) return fail(early.error);
      if (early?.spawned) return resolve();
      child.once('spawn', resolve);
      child.once('error', fail);
    });
    // Callers of launch() may only look at `exited`; never leave this rejection unhandled.
    started.catch(() => {});
    const process_ = new HarnessProcess(spec, child, started, early);
    live.add(process_);
    if (spec.firstLine !== undefined && !early) process_.writeLine(spec.firstLine);
    // Synchronously, in the caller's async context (the daemon attributes the group to a session by it).
    const pid = child.pid;
    if (pid !== undefined) {
      tellObservers((observer) =>
        observer.started({ pid, label: spec.label, ...(spec.harness !== undefined ? { harness: spec.harness } : {}) }),
      );
    }
    return process_;
  }

  get pid(): number {
    return this.child.pid as number;
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  get exitStatus(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** One handler for stdout lines; lines that came before it go to it first. */
  onLine(handler: (line: string) => void): void {
    this.lineHandler = handler;
    const waiting = this.unhandled ?? [];
    this.unhandled = undefined;
    for (const line of waiting) this.deliver(line);
  }

  /** Hears about skipped over-long lines and handler errors (after a handler error the child is stopped). */
  onFault(handler: (fault: ProcessFault) => void): void {
    this.faultHandler = handler;
  }

  /**
   * A line handler that throws must never take the Reins process down with it (a harness can only
   * hurt its own session): the child is stopped, and its session ends through its usual exit path.
   */
  private deliver(line: string): void {
    if (this.lineHandler === undefined) {
      if (this.unhandled && this.unhandled.length < UNHANDLED_LINES) this.unhandled.push(line);
      return;
    }
    try {
      this.lineHandler(line);
    } catch (error) {
      if (this.stoppedBecause !== undefined) return;
      this.stoppedBecause = `Reins could not handle a line from ${this.spec.label} (${error instanceof Error ? error.message : String(error)}) and stopped it`;
      this.fault({ kind: 'handler_error', error });
      void this.close({ stdinGraceMs: 0, termGraceMs: 1000 });
    }
  }

  private fault(fault: ProcessFault): void {
    try {
      this.faultHandler(fault);
    } catch {
      // a fault handler must not become a second fault
    }
  }

  /** Writes one line; returns false when the child's stdin is gone. */
  writeLine(line: string): boolean {
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded || this.hasExited) return false;
    this.spec.tap?.('in', line);
    stdin.write(`${line}\n`);
    return true;
  }

  /** Sends a signal to the whole process group; false when there is nothing to signal. */
  killGroup(signal: NodeJS.Signals): boolean {
    if (this.hasExited && signal !== 'SIGKILL') return false;
    try {
      process.kill(-this.pid, signal);
      return true;
    } catch {
      try {
        return this.child.kill(signal);
      } catch {
        return false;
      }
    }
  }

  /** A sentence about how the child ended, with the stderr tail, for process_exited errors. */
  describeExit(): string {
    if (this.stoppedBecause !== undefined) return `${this.stoppedBecause}.`;
    const status = this.exitInfo;
    const how = !status
      ? 'is still running'
      : status.signal
        ? `was killed by ${status.signal}`
        : `exited with code ${status.code}`;
    const tail = this.stderr.tail(8);
    return `${this.spec.label} ${how}${tail ? `. Its last stderr lines:\n${tail}` : '.'}`;
  }

  /** Ends the child: stdin end, then SIGTERM, then SIGKILL on the group. Idempotent. */
  close(options: CloseOptions = {}): Promise<ExitInfo> {
    this.closing ??= (async () => {
      const stdinGrace = options.stdinGraceMs ?? 1500;
      const termGrace = options.termGraceMs ?? 2000;
      if (!this.hasExited) this.child.stdin?.end();
      if (await this.exitsWithin(stdinGrace)) return this.afterExit();
      this.killGroup('SIGTERM');
      if (await this.exitsWithin(termGrace)) return this.afterExit();
      this.killGroup('SIGKILL');
      return this.afterExit(await this.exited);
    })();
    return this.closing;
  }

  /** The leader exited; make sure nothing else in its group lingers. */
  private afterExit(info: ExitInfo = this.exitInfo as ExitInfo): ExitInfo {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // the group is already empty
    }
    return info;
  }

  private async exitsWithin(ms: number): Promise<boolean> {
    if (this.hasExited) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const result = await Promise.race([this.exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return result;
  }
}

/**
 * A child started before Reins' modules loaded, by the `reins` executable (prestartHarness in
 * packages/cli/bin/reins.js: `reins bridge codex-app-server -H codex` starts its app-server while the
 * bundle loads, instead of after). It is handed to the first launch() with exactly its command, arguments, cwd and environment,
 * so it runs like any child spawned here; one nobody claimed is ended by discardPrestartedChild() (and
 * by the executable's exit hook). The record is shared through a global because the executable cannot
 * import this module without loading what it is meant to run beside.
 */
interface PrestartedChild {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  child: ChildProcess;
  /** 'spawn' came. */
  spawned: boolean;
  /** 'error' came before 'spawn': it never ran. */
  error?: NodeJS.ErrnoException;
  /** Handed over or discarded: nobody may claim it again. */
  claimed: boolean;
  /** Handed over to a launch (not discarded). */
  taken?: boolean;
  /** The line it wrote to the child's stdin as it spawned (SpawnSpec.firstLine). */
  firstLine?: string;
}
const PRESTARTED = Symbol.for('reins.prestartedChild');

const prestartRecord = (): PrestartedChild | undefined =>
  (globalThis as Record<symbol, PrestartedChild | undefined>)[PRESTARTED];

function prestarted(): PrestartedChild | undefined {
  const record = prestartRecord();
  return record && !record.claimed ? record : undefined;
}

function sameEnv(a: Record<string, string | undefined>, b: Record<string, string | undefined>): boolean {
  const defined = (env: Record<string, string | undefined>) => Object.keys(env).filter((key) => env[key] !== undefined);
  const keys = defined(a);
  return keys.length === defined(b).length && keys.every((key) => a[key] === b[key]);
}

function claimPrestarted(spec: SpawnSpec): PrestartedChild | undefined {
  const early = prestarted();
  if (
    !early ||
    early.command !== spec.command ||
    early.cwd !== spec.cwd ||
    early.args.length !== spec.args.length ||
    early.args.some((arg, index) => arg !== spec.args[index]) ||
    !sameEnv(early.env, spec.env) ||
    early.firstLine !== spec.firstLine
  ) {
    return undefined;
  }
  early.claimed = true;
  early.taken = true;
  // Its output waited in the pipes, held by a 'readable' listener (without one, Node drains and drops
  // the output of a child that exits unread); removing it lets the new owner's 'data' listeners flow.
  for (const stream of [early.child.stdout, early.child.stderr]) stream?.removeAllListeners('readable');
  return early;
}

/**
 * Ends a prestarted child nobody claimed (its launch settings were not the harness's). Says what became
 * of the prestart: `none` (there was none), `taken` (a launch runs it), `ended` (now or before).
 */
export function discardPrestartedChild(): 'none' | 'taken' | 'ended' {
  const record = prestartRecord();
  if (!record) return 'none';
  if (record.taken) return 'taken';
  const early = prestarted();
  if (!early) return 'ended';
  early.claimed = true;
  const { child } = early;
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  // Its pipes must not keep this process running.
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
  return 'ended';
}

/** The bwrap command line for a confined child; its writable folders must exist to be bound. */
function confine(spec: SpawnSpec, confinement: Confinement): { command: string; args: string[] } {
  for (const folder of confinement.writable) {
    try {
      mkdirSync(folder, { recursive: true });
    } catch {
      // bwrap names the folder it cannot bind, and the start fails with that on stderr
    }
  }
  return confinedArgv(confinement, spec.command, spec.args, spec.cwd);
}

/** How many harness children this process still owns (tests assert 0 after close). */
export function liveProcessCount(): number {
  return live.size;
}
