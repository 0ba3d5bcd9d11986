// What the bridges' process and real tests share: a bridge (or anything speaking JSON lines) as a
// bare subprocess, every line it wrote and every message sent to it kept for schema checks; the
// processes a test started, found by a marker in their environment (polling: the testkit's until).
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '@reins/testkit';

/** The reins CLI of this checkout (its dist: build first). */
export const REINS = fileURLToPath(new URL('../../../cli/bin/reins.js', import.meta.url));
export const HARNESS_FIXTURES = fileURLToPath(new URL('../../../harnesses/src/', import.meta.url));

/**
 * What a Codex client takes as its `codex` binary: a two-line script in `dir` that runs this checkout's
 * bridge in front of the Claude Code at `claudeBinary`, with whatever arguments the client adds.
 */
export async function writeCodexShim(dir: string, claudeBinary: string): Promise<string> {
  const shim = join(dir, 'codex');
  const bridge = `"${process.execPath}" "${REINS}" bridge codex-app-server -H claude-code --binary "${claudeBinary}"`;
  await writeFile(shim, `#!/bin/sh\nexec ${bridge} "$@"\n`);
  await chmod(shim, 0o755);
  return shim;
}

/** Live processes whose environment carries the marker (the bridge and everything it started). */
export function processesWithMarker(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${name}/environ`, 'utf8').includes(`REINS_BRIDGE_TEST_MARKER=${marker}`)) {
        found.push(Number(name));
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

export type Message = Record<string, unknown> & {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/** A subprocess spoken to in JSON lines (`jsonrpc: true` adds the "jsonrpc" member ACP wants). */
export class JsonLinesPeer {
  readonly child: ChildProcess;
  /** Every message written to it, in order. */
  readonly sent: Message[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private buffer = '';
  private readonly parsed: Message[] = [];
  private nextId = 1;

  constructor(
    command: string,
    args: string[],
    env: Record<string, string>,
    private readonly options: { jsonrpc?: boolean; cwd?: string } = {},
  ) {
    this.child = spawn(command, args, {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let newline = this.buffer.indexOf('\n');
      while (newline !== -1) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        // Anything on stdout that is not one JSON message is a broken protocol channel: kept visible.
        if (line.trim() !== '') this.parsed.push(parseLine(line));
        newline = this.buffer.indexOf('\n');
      }
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Every message it wrote, in order. */
  frames(): Message[] {
    return this.parsed;
  }

  write(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  send(message: Message): void {
    const full = this.options.jsonrpc ? { jsonrpc: '2.0', ...message } : message;
    this.sent.push(full);
    this.write(JSON.stringify(full));
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params: params as Record<string, unknown> });
  }

  async request(method: string, params: unknown = {}, timeoutMs = 15_000): Promise<Message> {
    const id = this.nextId++;
    this.send({ id, method, params: params as Record<string, unknown> });
    return this.answerTo(id, method, timeoutMs);
  }

  answerTo(id: unknown, what: string, timeoutMs = 15_000): Promise<Message> {
    return until(
      () =>
        this.parsed.find(
          (frame) => frame.id === id && frame.method === undefined && ('result' in frame || 'error' in frame),
        ),
      `the answer to ${what}`,
      timeoutMs,
    );
  }

  waitFor(match: (frame: Message) => boolean, what: string, timeoutMs = 15_000): Promise<Message> {
    return until(() => this.parsed.find(match), what, timeoutMs);
  }

  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin?.end();
    return this.exited;
  }
}

function parseLine(line: string): Message {
  try {
    const value = JSON.parse(line) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Message;
  } catch {
    // falls through
  }
  return { notJson: line };
}
