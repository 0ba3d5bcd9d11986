// Shared by the daemon tests: harness options that point Codex (or Claude Code) at the testkit's
// fake CLIs replaying recorded transcripts, optionally through the logging wrapper
// (fixtures/logging-fake.mjs: argv log, a grandchild like a tool process), a raw JSON-RPC socket
// for frames the client would never send, an event reader with deadlines, a silent logger and the
// ReinsError a call rejects with.
import { fileURLToPath } from 'node:url';
import { connect, type ReinsClient, type WireHarnessOptions } from '@reins/client';
import { ReinsError, type ReinsEvent } from '@reins/core';
import { fakeHarnessPath } from '@reins/testkit';
import { WebSocket } from 'ws';

export const FAKE_CODEX = fakeHarnessPath('codex');
export const codexTranscript = (name: string) =>
  fileURLToPath(new URL(`../../harnesses/src/codex/fixtures/${name}.0.169.0.jsonl`, import.meta.url));

/** Codex options for the fake: the same object goes to a local adapter or over the wire. */
export function fakeCodexOptions(transcript: string, knobs: Record<string, string> = {}): WireHarnessOptions {
  return {
    binaryPath: FAKE_CODEX,
    baseEnv: { PATH: process.env.PATH ?? '', FAKE_CODEX_TRANSCRIPT: codexTranscript(transcript), ...knobs },
    requestTimeoutMs: 5_000,
    interruptGraceMs: 1_000,
  };
}

export const FAKE_CLAUDE = fakeHarnessPath('claude-code');
export const LOGGING_FAKE = fileURLToPath(new URL('./fixtures/logging-fake.mjs', import.meta.url));
export const claudeFixture = (name: string) =>
  fileURLToPath(new URL(`../../harnesses/src/claude-code/fixtures/${name}.2.1.197.jsonl`, import.meta.url));

export interface FakeClaudeKnobs {
  /** Its own HOME/TMPDIR (the Agent SDK and the fake write nothing else). */
  home: string;
  fixture?: string;
  /** Each start appends its argv here (one JSON array per line). */
  argvLog?: string;
  /** Each start spawns a `sleep` in its process group and appends its pid here. */
  grandchildPids?: string;
  extra?: Record<string, string>;
}

/** The environment that runs the fake Claude through the logging wrapper. */
export function fakeClaudeEnv(knobs: FakeClaudeKnobs): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: knobs.home,
    TMPDIR: knobs.home,
    IS_SANDBOX: '1',
    FAKE_TARGET: FAKE_CLAUDE,
    FAKE_CLAUDE_FIXTURE: claudeFixture(knobs.fixture ?? 'text-turn'),
    ...(knobs.argvLog ? { FAKE_ARGV_LOG: knobs.argvLog } : {}),
    ...(knobs.grandchildPids ? { FAKE_GRANDCHILD_PIDS: knobs.grandchildPids } : {}),
    ...knobs.extra,
  };
}

/** Claude Code options for the fake behind the logging wrapper. */
export function fakeClaudeOptions(knobs: FakeClaudeKnobs): WireHarnessOptions {
  return { binaryPath: LOGGING_FAKE, baseEnv: fakeClaudeEnv(knobs), requestTimeoutMs: 10_000 };
}

export function client(url: string, token: string): Promise<ReinsClient> {
  return connect({ url, token, WebSocket, requestTimeoutMs: 15_000, client: { name: 'daemon-test', version: '0' } });
}

export interface RpcReply {
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data: { code: string; message: string; data?: Record<string, unknown> } };
}

/** A bare WebSocket speaking JSON-RPC by hand. */
export class RawSocket {
  readonly frames: unknown[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private nextId = 1;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()));
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.once('open', () => resolve(new RawSocket(socket)));
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () => reject(new RefusedUpgrade(response.statusCode ?? 0, body)));
      });
      socket.once('error', reject);
    });
  }

  sendText(text: string): void {
    this.socket.send(text);
  }

  /** Sends a request and waits (deadline) for the reply with its id. */
  async request(method: string, params?: unknown, timeoutMs = 10_000): Promise<RpcReply> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    return this.waitFor((frame) => (frame as RpcReply).id === id, `reply to ${method}`, timeoutMs) as Promise<RpcReply>;
  }

  async waitFor(predicate: (frame: unknown) => boolean, what: string, timeoutMs = 10_000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(predicate);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}

export class RefusedUpgrade extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upgrade refused with HTTP ${status}: ${body}`);
  }
}

/** Reads a session's events in the background; waits have deadlines. */
export class EventReader {
  readonly events: ReinsEvent[] = [];
  readonly done: Promise<void>;
  private waiters: Array<() => void> = [];

  constructor(source: AsyncIterable<ReinsEvent>) {
    this.done = (async () => {
      for await (const event of source) {
        this.events.push(event);
        for (const wake of this.waiters.splice(0)) wake();
      }
      for (const wake of this.waiters.splice(0)) wake();
    })();
  }

  async waitFor(predicate: (event: ReinsEvent) => boolean, what: string, timeoutMs = 10_000): Promise<ReinsEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(predicate);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out waiting for ${what}; events: ${this.events.map((e) => `${e.seq}:${e.type}`).join(', ')}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves when the stream has ended, within the deadline. */
  async ended(timeoutMs = 10_000): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.done,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the event stream did not end within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }
}

/** What a stream looks like without times: type, seq, turn and item kind/status. */
export function shape(events: readonly ReinsEvent[]): string[] {
  return events.map((event) => {
    const item =
      event.type === 'item.started' || event.type === 'item.completed'
        ? ` ${event.item.kind}/${event.item.status}`
        : '';
    const detail =
      event.type === 'turn.completed'
        ? ` ${event.outcome.status}`
        : event.type === 'session.status'
          ? ` ${event.status}`
          : event.type === 'item.delta'
            ? ` ${event.kind}:${event.text}`
            : '';
    return `${event.type}${item}${detail}`;
  });
}

/** A daemon logger that drops everything (its lines would bury the test output). */
export const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The ReinsError `promise` rejects with; a resolution or any other error fails the test. */
export function errorOf(promise: Promise<unknown>): Promise<ReinsError> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => {
      if (!ReinsError.isInstance(error)) throw error;
      return error;
    },
  );
}
