#!/usr/bin/env node
// A fake `codex app-server` for figure 4 (added latency per event): it answers initialize and
// thread/start with the frames recorded from the real Codex 0.169.0 (codex/fixtures/text-turn.0.169.0.jsonl),
// and on turn/start emits BENCH_FRAMES agent-message deltas at BENCH_RATE frames/s, each delta text
// carrying the monotonic clock (process.hrtime, CLOCK_MONOTONIC: shared by every process on the
// machine) read right before its line is written. Writes to a pipe are synchronous on Linux, so the
// stamp is when the line leaves the child. Then item/completed and turn/completed as recorded.
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

// The delta frame with its text replaced; serialized once up to the text, so each line costs one concat.
const deltaHead = JSON.stringify({ ...MESSAGE_DELTA, params: { ...MESSAGE_DELTA.params, delta: '\u0000' } }).split(
  '"\\u0000"',
);

async function emitTurn() {
  write(TURN_STARTED);
  write(MESSAGE_STARTED);
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
  write(MESSAGE_COMPLETED);
  write(TURN_COMPLETED);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined || message.method === undefined) return;
  switch (message.method) {
    case 'initialize':
      return write({ id: message.id, result: INITIALIZE });
    case 'thread/start':
      return write({ id: message.id, result: THREAD_START });
    case 'turn/start':
      write({ id: message.id, result: TURN_START });
      if (!idle) emitTurn();
      return;
    default:
      return write({ id: message.id, error: { code: -32601, message: `bench emitter: no ${message.method}` } });
  }
});
