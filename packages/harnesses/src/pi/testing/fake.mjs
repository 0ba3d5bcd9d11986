#!/usr/bin/env node
// A fake `pi --mode rpc` for process-level tests: it speaks Pi's JSONL RPC on stdin/stdout by replaying
// a transcript recorded from the real Pi (a reins/v1 fixture: one {dir, frame} per line after its header).
//
// Each command read on stdin is matched to the next recorded command of the same type; the recorded stdout
// frames that follow it (up to the next recorded command) are written out. Response ids are rewritten from the
// recorded id to the live one, so a response recorded after a later command (Pi answers abort only once its
// agent is idle) still reaches the right caller. Unmatched commands get a success response with no data.
//
// Environment:
//   FAKE_PI_TRANSCRIPT   path of the fixture to replay (required)
//   FAKE_PI_EXIT_AFTER   after this many frames of the prompt's reply, print to stderr and exit 3 (a crash)
//   FAKE_PI_GARBAGE      a line written (verbatim, not JSON) right after the prompt's response
//   FAKE_PI_IGNORE       a command type that is never answered and replays nothing (a hang)
//   FAKE_PI_VERSION      what --version prints (default 0.73.1)
//   FAKE_PI_HOLD_PROMPT  n: the n-th prompt (1-based) replays nothing: it is answered and its turn starts, then
//                        stays open until an abort ends it `aborted` as Pi does (the abort fixture's frames)
import { readFileSync } from 'node:fs';

if (process.argv.includes('--version')) {
  process.stdout.write(`${process.env.FAKE_PI_VERSION ?? '0.73.1'}\n`);
  process.exit(0);
}

const transcriptPath = process.env.FAKE_PI_TRANSCRIPT;
if (!transcriptPath) {
  process.stderr.write('fake pi: FAKE_PI_TRANSCRIPT is not set\n');
  process.exit(2);
}
const entries = readFileSync(transcriptPath, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line))
  .filter((entry) => entry.dir === 'in' || entry.dir === 'out');

const exitAfter = process.env.FAKE_PI_EXIT_AFTER ? Number(process.env.FAKE_PI_EXIT_AFTER) : undefined;
const garbage = process.env.FAKE_PI_GARBAGE;
const ignore = process.env.FAKE_PI_IGNORE;
const liveIds = new Map();
let cursor = 0;

function write(frame) {
  if (frame.type === 'response' && typeof frame.id === 'string') {
    const live = liveIds.get(frame.id);
    if (live === undefined) return; // the recorded caller never asked this run
    frame = { ...frame, id: live };
  }
  process.stdout.write(`${JSON.stringify(frame)}\n`);
}

let prompts = 0;
/** The user message of the prompt FAKE_PI_HOLD_PROMPT holds open. */
let heldUser;
/** The first recorded assistant message: the shape of the aborted one. */
const recordedAssistant = entries.find(
  (entry) => entry.frame.type === 'message_end' && entry.frame.message?.role === 'assistant',
)?.frame.message;

function out(frame) {
  process.stdout.write(`${JSON.stringify(frame)}\n`);
}

function holdPrompt(command) {
  heldUser = { role: 'user', content: [{ type: 'text', text: String(command.message ?? '') }], timestamp: Date.now() };
  out({ id: command.id, type: 'response', command: 'prompt', success: true });
  out({ type: 'agent_start' });
  out({ type: 'turn_start' });
  out({ type: 'message_start', message: heldUser });
  out({ type: 'message_end', message: heldUser });
}

function abortHeld(command) {
  const assistant = {
    ...recordedAssistant,
    role: 'assistant',
    content: [],
    stopReason: 'aborted',
    errorMessage: 'Request was aborted',
    timestamp: Date.now(),
  };
  out({ type: 'message_start', message: { ...assistant, stopReason: undefined, errorMessage: undefined } });
  out({ type: 'message_end', message: assistant });
  out({ type: 'turn_end', message: assistant, toolResults: [] });
  out({ type: 'agent_end', messages: [heldUser, assistant] });
  heldUser = undefined;
  // Pi answers abort once its agent is idle.
  out({ id: command.id, type: 'response', command: 'abort', success: true });
}

function handle(command) {
  if (command.type === ignore) return;
  if (command.type === 'prompt' && ++prompts === Number(process.env.FAKE_PI_HOLD_PROMPT ?? 0)) {
    holdPrompt(command);
    return;
  }
  if (command.type === 'abort' && heldUser) {
    abortHeld(command);
    return;
  }
  let index = cursor;
  while (index < entries.length && !(entries[index].dir === 'in' && entries[index].frame.type === command.type)) {
    index++;
  }
  if (index >= entries.length) {
    // Written as is: write() maps recorded ids, and this live id was never recorded.
    process.stdout.write(
      `${JSON.stringify({ type: 'response', command: command.type, success: true, id: command.id })}\n`,
    );
    return;
  }
  const recorded = entries[index].frame;
  if (typeof recorded.id === 'string') liveIds.set(recorded.id, command.id);
  cursor = index + 1;
  let written = 0;
  while (cursor < entries.length && entries[cursor].dir === 'out') {
    const frame = entries[cursor].frame;
    cursor++;
    write(frame);
    if (command.type === 'prompt' && frame.type === 'response' && garbage) process.stdout.write(`${garbage}\n`);
    if (command.type === 'prompt' && exitAfter !== undefined && ++written >= exitAfter) {
      process.stderr.write('fake pi: crashing mid-turn as scripted\n');
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
      try {
        handle(JSON.parse(line));
      } catch (error) {
        write({
          type: 'response',
          command: 'parse',
          success: false,
          error: `Failed to parse command: ${error.message}`,
        });
      }
    }
    newline = buffer.indexOf('\n');
  }
});
process.stdin.on('end', () => process.exit(0));
