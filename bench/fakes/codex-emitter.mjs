#!/usr/bin/env node
// A fake `codex app-server` for figure 4 (added latency per event): it answers initialize and
// thread/start with the frames recorded from the real Codex 0.169.0 (codex/fixtures/text-turn.0.169.0.jsonl),
// and on turn/start emits BENCH_FRAMES agent-message deltas at BENCH_RATE frames/s, each delta text
// carrying the monotonic clock (process.hrtime, CLOCK_MONOTONIC: shared by every process on the
// machine) read right before its line is written. Writes to a pipe are synchronous on Linux, so the
// stamp is when the line leaves the child. Then item/completed and turn/completed as recorded.
//
// Several threads on one process (Reins shares an app-server between sessions): each further
// thread/start answers the recorded thread under a new id (recorded id + "-2", "-3", ...), and a
// turn/start's frames carry the threadId it names.
//
// BENCH_IDLE=1: answer initialize/thread/start and nothing else (figure 5, idle sessions).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

if (process.argv.includes('--version')) {
  process.stdout.write('codex-cli 0.169.0\n');
  process.exit(0);
}

const fixture = readFileSync(process.env.BENCH_CODEX_FIXTURE ?? '', 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line))
  .slice(1);
const out = fixture.filter((row) => row.dir === 'out').map((row) => row.frame);
const find = (predicate) => {
  const frame = out.find(predicate);
  if (!frame) throw new Error('the fixture lacks a frame the emitter needs');
  return frame;
};
const responseTo = (method) => {
  const request = fixture.find((row) => row.dir === 'in' && row.frame.method === method)?.frame;
  return find((frame) => frame.id === request?.id && frame.method === undefined).result;
};
const INITIALIZE = responseTo('initialize');
const THREAD_START = responseTo('thread/start');
const TURN_START = responseTo('turn/start');
const TURN_STARTED = find((frame) => frame.method === 'turn/started');
const MESSAGE_STARTED = find((frame) => frame.method === 'item/started' && frame.params.item.type === 'agentMessage');
const MESSAGE_DELTA = find((frame) => frame.method === 'item/agentMessage/delta');
const MESSAGE_COMPLETED = find(
  (frame) => frame.method === 'item/completed' && frame.params.item.type === 'agentMessage',
);
const TURN_COMPLETED = find((frame) => frame.method === 'turn/completed');

const frames = Number(process.env.BENCH_FRAMES ?? 1000);
const rate = Number(process.env.BENCH_RATE ?? 1000);
const idle = process.env.BENCH_IDLE === '1';
const write = (frame) => process.stdout.write(`${JSON.stringify(frame)}\n`);

const RECORDED_THREAD = THREAD_START.thread.id;
let threads = 0;
/** A recorded frame as it would be on another thread. */
const onThread = (frame, threadId) =>
  threadId === RECORDED_THREAD ? frame : JSON.parse(JSON.stringify(frame).replaceAll(RECORDED_THREAD, threadId));

// The delta frame with its text replaced; serialized once per thread up to the text, so each line costs one concat.
const deltaHeads = new Map();
function deltaHeadOf(threadId) {
  let head = deltaHeads.get(threadId);
  if (!head) {
    const delta = onThread(MESSAGE_DELTA, threadId);
    head = JSON.stringify({ ...delta, params: { ...delta.params, delta: '\u0000' } }).split('"\\u0000"');
    deltaHeads.set(threadId, head);
  }
  return head;
}

async function emitTurn(threadId) {
  const deltaHead = deltaHeadOf(threadId);
  write(onThread(TURN_STARTED, threadId));
  write(onThread(MESSAGE_STARTED, threadId));
  const started = process.hrtime.bigint();
  let sent = 0;
  while (sent < frames) {
    const due = Math.min(frames, Math.floor((Number(process.hrtime.bigint() - started) / 1e9) * rate) + 1);
    while (sent < due) {
      sent++;
      process.stdout.write(`${deltaHead[0]}"${sent}@${process.hrtime.bigint()}"${deltaHead[1]}\n`);
    }
    // ~1 ms ticks: frames due within a tick leave together, as from a harness that batches writes.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  write(onThread(MESSAGE_COMPLETED, threadId));
  write(onThread(TURN_COMPLETED, threadId));
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined || message.method === undefined) return;
  switch (message.method) {
    case 'initialize':
      return write({ id: message.id, result: INITIALIZE });
    case 'thread/start': {
      threads++;
      const threadId = threads === 1 ? RECORDED_THREAD : `${RECORDED_THREAD}-${threads}`;
      return write({ id: message.id, result: onThread(THREAD_START, threadId) });
    }
    case 'turn/start': {
      const threadId = typeof message.params?.threadId === 'string' ? message.params.threadId : RECORDED_THREAD;
      write({ id: message.id, result: onThread(TURN_START, threadId) });
      if (!idle) emitTurn(threadId);
      return;
    }
    default:
      return write({ id: message.id, error: { code: -32601, message: `bench emitter: no ${message.method}` } });
  }
});
