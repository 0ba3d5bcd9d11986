// thread/shellCommand: the Codex TUI's `!command`. Codex runs it itself (`/bin/bash -lc`, in the
// thread's cwd) as a turn of its own with one commandExecution item of source `userShell`, outside
// the model's turn; the bridge does the same as a process of its own, since no harness takes a
// command to run without its model (docs/architecture/bridges.md, "What the Codex TUI calls").
// The command's output is shown to the client; the harness's conversation does not hear of it.
import { spawn } from 'node:child_process';
import { uuidv7 } from '../ids.js';
import { RpcError } from './connection.js';
import { requiredString } from './requests.js';
import type { BridgeThread } from './thread.js';
import { RPC, type ThreadItem, type Turn } from './wire.js';

/** Output kept for the item (more is cut, as a terminal's scrollback would). */
const MAX_OUTPUT_CHARS = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

type Params = Record<string, unknown>;

/** The commandExecution item of a user's shell command, at start or at its end. */
export function userShellItem(
  base: { id: string; command: string; cwd: string; startedAtMs: number },
  end?: { output: string; exitCode: number | null; completedAtMs: number },
): ThreadItem {
  return {
    type: 'commandExecution',
    id: base.id,
    pluginId: null,
    scriptPath: null,
    command: `/bin/bash -lc ${JSON.stringify(base.command)}`,
    cwd: base.cwd,
    processId: null,
    source: 'userShell',
    status: end ? (end.exitCode === 0 ? 'completed' : 'failed') : 'inProgress',
    commandActions: [{ type: 'unknown', command: base.command }],
    aggregatedOutput: end ? end.output : null,
    exitCode: end ? end.exitCode : null,
    durationMs: end ? Math.max(0, end.completedAtMs - base.startedAtMs) : null,
    startedAtMs: base.startedAtMs,
    completedAtMs: end ? end.completedAtMs : null,
  };
}

function turnObject(id: string, startedAtMs: number, completedAtMs?: number): Turn {
  const seconds = (ms: number) => Math.floor(ms / 1000);
  return {
    id,
    rootTurnId: id,
    items: [],
    itemsView: 'notLoaded',
    status: completedAtMs === undefined ? 'inProgress' : 'completed',
    error: null,
    startedAt: seconds(startedAtMs),
    completedAt: completedAtMs === undefined ? null : seconds(completedAtMs),
    durationMs: completedAtMs === undefined ? null : completedAtMs - startedAtMs,
  };
}

/** Answers at once (as Codex: `{}`); the command's turn follows as notifications. */
export function runShellCommand(thread: BridgeThread, params: Params): Record<string, never> {
  const command = requiredString(params, 'command');
  if (thread.state.turn) {
    throw new RpcError(RPC.invalidRequest, 'a turn is running on this thread; run the command once it ends', {
      threadId: thread.id,
    });
  }
  const timeoutMs =
    typeof params.timeoutMs === 'number' && params.timeoutMs > 0 ? params.timeoutMs : DEFAULT_TIMEOUT_MS;
  const threadId = thread.id;
  const turnId = uuidv7();
  const base = { id: uuidv7(), command, cwd: thread.state.cwd, startedAtMs: Date.now() };
  thread.emit([
    { method: 'thread/status/changed', params: { threadId, status: { type: 'active', activeFlags: [] } } },
    { method: 'turn/started', params: { threadId, turn: turnObject(turnId, base.startedAtMs) } },
    {
      method: 'item/started',
      params: { item: userShellItem(base), threadId, turnId, startedAtMs: base.startedAtMs },
    },
  ]);
  let output = '';
  const child = spawn('/bin/bash', ['-lc', command], { cwd: base.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const take = (chunk: Buffer) => {
    const delta = chunk.toString('utf8');
    if (output.length >= MAX_OUTPUT_CHARS) return;
    output += delta;
    thread.emit([
      { method: 'item/commandExecution/outputDelta', params: { threadId, turnId, itemId: base.id, delta } },
    ]);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  let finished = false;
  const finish = (exitCode: number | null, error?: string) => {
    // 'error' may come before 'close': the turn ends once.
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    if (error) output += `${output && !output.endsWith('\n') ? '\n' : ''}${error}\n`;
    const completedAtMs = Date.now();
    const item = userShellItem(base, { output, exitCode, completedAtMs });
    thread.emit([
      { method: 'item/completed', params: { item, threadId, turnId, contentTokenCount: null, completedAtMs } },
      { method: 'thread/status/changed', params: { threadId, status: { type: 'idle' } } },
      { method: 'turn/completed', params: { threadId, turn: turnObject(turnId, base.startedAtMs, completedAtMs) } },
    ]);
  };
  child.on('error', (error) => finish(null, error.message));
  child.on('close', (code) => finish(code));
  return {};
}
