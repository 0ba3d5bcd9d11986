// The bench's own minimal newline-delimited JSON-RPC client over a child's stdio, used for the raw
// paths (Codex app-server, claude-agent-acp over ACP) so that they do not go through any Reins code.
// The child runs in its own process group; close() ends stdin, then SIGTERM, then SIGKILL the group.
import { spawn } from 'node:child_process';

export class LineRpc {
  /**
   * @param {string} command
   * @param {string[]} args
   * @param {{ env: Record<string, string>, cwd: string, jsonrpc?: boolean }} options jsonrpc: add "jsonrpc":"2.0" (ACP), Codex omits it
   */
  constructor(command, args, { env, cwd, jsonrpc = false }) {
    this.jsonrpc = jsonrpc;
    this.nextId = 1;
    this.pending = new Map();
    this.stderr = '';
    /** (method, params, frame) => void */
    this.onNotification = () => {};
    /** (method, params) => Promise<unknown>; the default answers "method not found". */
    this.onRequest = async (method) => {
      throw { code: -32601, message: `bench client does not implement ${method}` };
    };
    this.child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child.stdin.on('error', () => {});
    let buffer = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line.trim() !== '') this.onLine(line);
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        for (const { reject } of this.pending.values())
          reject(new Error(`${command} exited (${code ?? signal}): ${this.stderr.trim().slice(-400)}`));
        this.pending.clear();
        resolve({ code, signal });
      });
      this.child.on('error', (error) => {
        for (const { reject } of this.pending.values()) reject(error);
        this.pending.clear();
        resolve({ code: null, signal: null });
      });
    });
  }

  onLine(line) {
    let frame;
    try {
      frame = JSON.parse(line);
    } catch {
      return; // a stray non-JSON line (a banner): not ours to judge here
    }
    if (frame.id !== undefined && frame.method === undefined) {
      const waiter = this.pending.get(frame.id);
      if (!waiter) return;
      this.pending.delete(frame.id);
      if (frame.error) waiter.reject(new Error(`${waiter.method}: ${JSON.stringify(frame.error)}`));
      else waiter.resolve(frame.result);
      return;
    }
    if (frame.id !== undefined) {
      this.onRequest(frame.method, frame.params).then(
        (result) => this.write({ id: frame.id, result: result ?? null }),
        (error) =>
          this.write({
            id: frame.id,
            error: { code: error?.code ?? -32603, message: String(error?.message ?? error) },
          }),
      );
      return;
    }
    this.onNotification(frame.method, frame.params, frame);
  }

  write(message) {
    const frame = this.jsonrpc ? { jsonrpc: '2.0', ...message } : message;
    this.child.stdin.write(`${JSON.stringify(frame)}\n`);
  }

  request(method, params, timeoutMs = 120_000) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} got no answer within ${timeoutMs} ms; stderr: ${this.stderr.trim().slice(-400)}`));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.write({ id, method, params });
    });
  }

  notify(method, params) {
    this.write({ method, params });
  }

  async close() {
    await closeGroup(this.child, this.exited);
  }
}

/** stdin end -> SIGTERM -> SIGKILL on the child's process group, each step with a short grace. */
export async function closeGroup(child, exited, graceMs = 2_000) {
  const wait = (ms) =>
    Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  if (await wait(graceMs)) return;
  for (const signal of ['SIGTERM', 'SIGKILL']) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      return;
    }
    if (await wait(graceMs)) return;
  }
}

/** Rejects after ms with a message naming what was awaited. */
export function deadline(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
