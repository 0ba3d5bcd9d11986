#!/usr/bin/env node
// A fake `amp -x --stream-json --stream-json-input` for process-level tests. Amp cannot run here (it needs
// its service), so this replays CONSTRUCTED frames that follow Amp's documented Claude Code compatible
// stream-json (packages/harnesses/src/amp/fixtures/*.jsonl, reins/v1: a header, then {dir, frame} lines
// where each "in" user line opens a turn), keeping stdin open between turns the way Amp is driven
// headlessly: the N-th user line read on stdin gets the "out" frames of turn N. No `result` is required
// for a turn to end.
//
// Environment:
//   FAKE_AMP_SCRIPT      the fixture to replay (required)
//   FAKE_AMP_EXIT_AFTER  after this many frames of a turn, print to stderr and exit 3 (a crash)
//   FAKE_AMP_GARBAGE     a line written verbatim (not JSON) before each turn's frames
//   FAKE_AMP_VERSION     what --version prints (default 0.0.1790142911-g7618fb)
import { readFileSync } from 'node:fs';

if (process.argv.includes('--version')) {
  process.stdout.write(`${process.env.FAKE_AMP_VERSION ?? '0.0.1790142911-g7618fb'}\n`);
  process.exit(0);
}
const scriptPath = process.env.FAKE_AMP_SCRIPT;
if (!scriptPath) {
  process.stderr.write('fake amp: FAKE_AMP_SCRIPT is not set\n');
  process.exit(2);
}
for (const flag of ['-x', '--stream-json', '--stream-json-input']) {
  if (!process.argv.includes(flag)) {
    process.stderr.write(`fake amp: expected ${flag} among the arguments\n`);
    process.exit(2);
  }
}
/** The "out" frames of each recorded turn, in order. */
const turns = [];
for (const entry of readFileSync(scriptPath, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line))) {
  if (entry.dir === 'in' && entry.frame?.type === 'user') turns.push([]);
  else if (entry.dir === 'out' && turns.length > 0) turns[turns.length - 1].push(entry.frame);
}
const exitAfter = process.env.FAKE_AMP_EXIT_AFTER ? Number(process.env.FAKE_AMP_EXIT_AFTER) : undefined;
let turn = 0;

function play() {
  turn++;
  if (process.env.FAKE_AMP_GARBAGE) process.stdout.write(`${process.env.FAKE_AMP_GARBAGE}\n`);
  let written = 0;
  for (const frame of turns[turn - 1] ?? []) {
    process.stdout.write(`${JSON.stringify(frame)}\n`);
    if (exitAfter !== undefined && ++written >= exitAfter) {
      process.stderr.write('fake amp: crashing mid-turn as scripted\n');
      process.exit(3);
    }
  }
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let newline = buffer.indexOf('\n');
  while (newline !== -1) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (line) {
      const message = JSON.parse(line);
      if (message.type !== 'user') {
        process.stderr.write(`fake amp: expected a user message, got ${message.type}\n`);
        process.exit(2);
      }
      play();
    }
    newline = buffer.indexOf('\n');
  }
});
process.stdin.on('end', () => process.exit(0));
