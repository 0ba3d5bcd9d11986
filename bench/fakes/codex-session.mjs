#!/usr/bin/env node
// A fake `codex app-server` for figure 7 (the console): every turn is a realistic mixed turn built
// from the frames recorded from the real Codex 0.169.0 (codex/fixtures/shell-command and reasoning):
// the user's message, a reasoning summary streamed in deltas, a command whose output streams line by
// line, the answer streamed word by word, token usage, turn/completed. Ids are made unique per turn.
//
//   BENCH_TEXT_DELTAS       answer deltas per turn (default 300)
//   BENCH_REASONING_DELTAS  reasoning deltas per turn (default 40)
//   BENCH_OUTPUT_LINES      command output deltas per turn (default 20)
//   BENCH_RATE              answer deltas per second (default 0: as fast as the pipe takes them)
// With a rate, deltas due within a ~1 ms tick leave together, as from a harness that batches writes.
// Reins may run several sessions on one app-server (a thread each): every thread/start gets its own
// thread id, every frame of a turn names its thread, and each thread runs its turns in order.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

if (process.argv.includes('--version')) {
  process.stdout.write('codex-cli 0.169.0\n');
  process.exit(0);
}

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../packages/harnesses/src/codex/fixtures');
const rowsOf = (name) =>
  readFileSync(join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    .slice(1);
const shell = rowsOf('shell-command.0.169.0.jsonl');
const reasoning = rowsOf('reasoning.0.169.0.jsonl');
const outOf = (rows) => rows.filter((row) => row.dir === 'out').map((row) => row.frame);
const find = (rows, predicate) => {
  const frame = outOf(rows).find(predicate);
  if (!frame) throw new Error('the fixture lacks a frame the fake needs');
  return frame;
};
const responseTo = (method) => {
  const request = shell.find((row) => row.dir === 'in' && row.frame.method === method)?.frame;
  return find(shell, (frame) => frame.id === request?.id && frame.method === undefined).result;
};
const itemFrame = (rows, method, type) =>
  find(rows, (frame) => frame.method === method && frame.params.item?.type === type);

const INITIALIZE = responseTo('initialize');
const THREAD_START = responseTo('thread/start');
const TURN_START = responseTo('turn/start');
const T = {
  active: find(shell, (frame) => frame.method === 'thread/status/changed' && frame.params.status.type === 'active'),
  idle: find(shell, (frame) => frame.method === 'thread/status/changed' && frame.params.status.type === 'idle'),
  turnStarted: find(shell, (frame) => frame.method === 'turn/started'),
  userStarted: itemFrame(shell, 'item/started', 'userMessage'),
  userCompleted: itemFrame(shell, 'item/completed', 'userMessage'),
  reasoningStarted: itemFrame(reasoning, 'item/started', 'reasoning'),
  reasoningDelta: find(reasoning, (frame) => frame.method === 'item/reasoning/summaryTextDelta'),
  reasoningCompleted: itemFrame(reasoning, 'item/completed', 'reasoning'),
  commandStarted: itemFrame(shell, 'item/started', 'commandExecution'),
  commandCompleted: itemFrame(shell, 'item/completed', 'commandExecution'),
  messageStarted: itemFrame(shell, 'item/started', 'agentMessage'),
  messageDelta: find(shell, (frame) => frame.method === 'item/agentMessage/delta'),
  messageCompleted: itemFrame(shell, 'item/completed', 'agentMessage'),
  usage: find(shell, (frame) => frame.method === 'thread/tokenUsage/updated'),
  turnCompleted: find(shell, (frame) => frame.method === 'turn/completed'),
};

const count = (name, fallback) => Number(process.env[name] ?? fallback);
const TEXT_DELTAS = count('BENCH_TEXT_DELTAS', 300);
const REASONING_DELTAS = count('BENCH_REASONING_DELTAS', 40);
const OUTPUT_LINES = count('BENCH_OUTPUT_LINES', 20);
const RATE = count('BENCH_RATE', 0);

const write = (frame) => process.stdout.write(`${JSON.stringify(frame)}\n`);
const clone = (frame) => structuredClone(frame);
let turns = 0;

/** The template with this turn's ids (and the item's own fields) put in. */
function framed(template, threadId, turnId, item) {
  const frame = clone(template);
  const params = frame.params;
  if (params.threadId !== undefined) params.threadId = threadId;
  if (params.turn?.threadId !== undefined) params.turn.threadId = threadId;
  if (params.turnId !== undefined) params.turnId = turnId;
  if (params.turn) params.turn.id = params.turn.rootTurnId = turnId;
  if (params.turn?.items) params.turn.items = [];
  if (item) {
    if (params.item) Object.assign(params.item, item);
    if (params.itemId !== undefined) params.itemId = item.id;
  }
  return frame;
}

async function emitTurn(threadId, n, text) {
  const turnId = `bench-turn-${n}`;
  const words = Array.from({ length: TEXT_DELTAS }, (_, index) => `word${index} `);
  const thoughts = Array.from({ length: REASONING_DELTAS }, (_, index) => `thought${index} `);
  const lines = Array.from({ length: OUTPUT_LINES }, (_, index) => `line ${index} of the test output\n`);
  const user = { id: `user-${n}`, content: [{ type: 'text', text, text_elements: [] }] };
  const thinking = { id: `rs-${n}` };
  const command = { id: `call-${n}`, command: "/bin/bash -lc 'npm test'", commandActions: [] };
  const message = { id: `msg-${n}` };

  write(framed(T.active, threadId, turnId));
  write(framed(T.turnStarted, threadId, turnId));
  write(framed(T.userStarted, threadId, turnId, user));
  write(framed(T.userCompleted, threadId, turnId, user));
  write(framed(T.reasoningStarted, threadId, turnId, thinking));
  const thoughtHead = framed(T.reasoningDelta, threadId, turnId, thinking);
  for (const delta of thoughts) write({ ...thoughtHead, params: { ...thoughtHead.params, delta } });
  write(framed(T.reasoningCompleted, threadId, turnId, { ...thinking, summary: [thoughts.join('')] }));
  write(framed(T.commandStarted, threadId, turnId, command));
  for (const delta of lines) {
    write({
      method: 'item/commandExecution/outputDelta',
      params: { threadId, turnId, itemId: command.id, delta },
    });
  }
  write(framed(T.commandCompleted, threadId, turnId, { ...command, aggregatedOutput: lines.join(''), exitCode: 0 }));
  write(framed(T.messageStarted, threadId, turnId, message));
  const deltaHead = framed(T.messageDelta, threadId, turnId, message);
  const started = process.hrtime.bigint();
  let sent = 0;
  while (sent < words.length) {
    const due =
      RATE > 0
        ? Math.min(words.length, Math.floor((Number(process.hrtime.bigint() - started) / 1e9) * RATE) + 1)
        : words.length;
    for (; sent < due; sent++) write({ ...deltaHead, params: { ...deltaHead.params, delta: words[sent] } });
    if (RATE > 0) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  write(framed(T.messageCompleted, threadId, turnId, { ...message, text: words.join('') }));
  write(framed(T.usage, threadId, turnId));
  write(framed(T.idle, threadId, turnId));
  write(framed(T.turnCompleted, threadId, turnId));
}

// Per thread one turn at a time, as Codex runs them: a turn/start that arrives meanwhile waits its turn.
const threads = new Map();
let threadCount = 0;
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined || message.method === undefined) return;
  switch (message.method) {
    case 'initialize':
      return write({ id: message.id, result: INITIALIZE });
    case 'thread/start': {
      const id = `bench-thread-${++threadCount}`;
      threads.set(id, Promise.resolve());
      return write({
        id: message.id,
        result: { ...THREAD_START, thread: { ...THREAD_START.thread, id, sessionId: id } },
      });
    }
    case 'turn/start': {
      const n = ++turns;
      write({
        id: message.id,
        result: { ...TURN_START, turn: { ...TURN_START.turn, id: `bench-turn-${n}`, rootTurnId: `bench-turn-${n}` } },
      });
      const text = message.params?.input?.find((part) => part.type === 'text')?.text ?? '';
      const threadId = message.params?.threadId;
      threads.set(
        threadId,
        (threads.get(threadId) ?? Promise.resolve()).then(() => emitTurn(threadId, n, text)),
      );
      return;
    }
    default:
      return write({ id: message.id, error: { code: -32601, message: `bench fake: no ${message.method}` } });
  }
});
