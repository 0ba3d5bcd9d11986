#!/usr/bin/env node
// A fake `claude` for process-level tests: it speaks Claude Code's stream-json on stdin/stdout the
// way the Agent SDK drives it (`--input-format stream-json --output-format stream-json`), answering
// control requests itself and replaying, for the k-th user message, the output frames the real CLI
// printed for its k-th turn in a recorded Reins fixture (reins/v1 JSONL, CLI version in line 1).
//
// Knobs (environment):
//   FAKE_CLAUDE_FIXTURE          fixture to replay (required for turns)
//   FAKE_CLAUDE_SLOW_START_MS    wait before answering initialize
//   FAKE_CLAUDE_CRASH_AFTER      exit 1 after writing this many frames of the first turn
//   FAKE_CLAUDE_GARBAGE          print a non-JSON line before each turn's frames
//   FAKE_CLAUDE_STDERR_NOISE     write noise to stderr all the time
//   FAKE_CLAUDE_HANG             take user messages and never answer them (interrupt still works)
//   FAKE_CLAUDE_FRAME_DELAY_MS   pause between replayed frames (default 2)
//   FAKE_CLAUDE_LOGGED_IN        "0" makes `auth status` report loggedIn:false
//   FAKE_CLAUDE_SILENT_TURN      the k-th user message (1-based) gets only its turn's system/init, then
//                                silence until interrupted; it uses up no fixture turn
//   FAKE_CLAUDE_LATE_RESULT_MS   on interrupt, wait this long before the interrupted turn's result;
//                                "never": no result at all, the next queued message just runs
//   FAKE_CLAUDE_INJECT           a line written after the first frame of every turn (a frame from a
//                                newer or broken CLI, mid-turn)
//   FAKE_CLAUDE_ARGV_FILE        write the launch arguments (JSON) to this file
//   FAKE_CLAUDE_AFTER_RESULT     "1": also replay what the CLI printed on its own after a turn's
//                                result (background work, a turn it started itself), right after it
//   FAKE_CLAUDE_MCP_STATUS       JSON list the `mcp_status` control request answers as `mcpServers`
//                                (the Agent SDK's mcpServerStatus()); default: no answer body
//   FAKE_CLAUDE_CONVERSATIONS    a folder: each session's user texts are kept in <id>.json there (a
//                                resume continues them, a fork copies them), and every turn appends
//                                the whole conversation it would send the model to requests.jsonl
//   FAKE_CLAUDE_RESUME_STRICT   "1" with FAKE_CLAUDE_CONVERSATIONS: a --resume of an id with no file there
//                                exits 1 with "No conversation found with session ID: <id>" (2.1.197)
//   (with FAKE_CLAUDE_CONVERSATIONS) `--resume-session-at UUID` keeps the resumed conversation's texts up
//                                to the turn that printed the assistant message UUID (<id>.marks.json), as
//                                the real CLI keeps its transcript up to that message; an unknown UUID exits 1
// Also: a fork (`--resume SOURCE --fork-session --session-id NEW`) runs as NEW, as the real CLI does.
// Also: `--version` prints the fixture's version; `auth status` prints JSON like the real CLI.
// Plain Node ESM, no dependencies.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const env = process.env;
const argv = process.argv.slice(2);
if (env.FAKE_CLAUDE_ARGV_FILE && argv.includes('--input-format'))
  writeFileSync(env.FAKE_CLAUDE_ARGV_FILE, JSON.stringify(argv));
const fixture = env.FAKE_CLAUDE_FIXTURE ? loadFixture(env.FAKE_CLAUDE_FIXTURE) : undefined;

function loadFixture(path) {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
  const [header, ...frames] = lines;
  const turns = [];
  let initialize;
  let current;
  for (const { dir, frame } of frames) {
    if (dir === 'in' && frame?.type === 'user') {
      current = [];
      turns.push(current);
    } else if (dir === 'out' && frame?.type === 'control_response' && !initialize) {
      initialize = frame.response?.response;
    } else if (dir === 'out' && current && typeof frame === 'object' && frame?.type !== 'control_response') {
      current.push(frame);
      if (frame.type === 'result' && env.FAKE_CLAUDE_AFTER_RESULT !== '1') current = undefined;
    }
  }
  return { header, turns, initialize };
}

const write = (value) => process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const version = fixture?.header?.version ?? '2.1.197';

if (argv.includes('--version')) {
  write(`${version} (Claude Code)`);
  process.exit(0);
}
if (argv[0] === 'auth' && argv[1] === 'status') {
  const loggedIn = env.FAKE_CLAUDE_LOGGED_IN !== '0';
  write({ loggedIn, authMethod: loggedIn ? 'api_key' : 'none', apiProvider: 'firstParty' });
  process.exit(loggedIn ? 0 : 1);
}

const flag = (name) => {
  const index = argv.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index === -1) return undefined;
  return argv[index].includes('=') ? argv[index].split('=')[1] : argv[index + 1];
};
const forked = argv.includes('--fork-session');
const sessionId =
  (forked ? flag('--session-id') : undefined) ??
  flag('--resume') ??
  flag('--session-id') ??
  '00000000-0000-4000-8000-000000000000';
const conversations = env.FAKE_CLAUDE_CONVERSATIONS;
const conversationFile = (id) => join(conversations, `${id}.json`);
const continued = flag('--resume');
if (env.FAKE_CLAUDE_RESUME_STRICT === '1' && conversations && continued && !existsSync(conversationFile(continued))) {
  process.stderr.write(`No conversation found with session ID: ${continued}\n`);
  process.exit(1);
}
const readJson = (path, fallback) => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : fallback);
/** The user texts of this conversation so far (a resume's or a fork's source's, then this process's). */
const conversation = conversations && continued ? readJson(conversationFile(continued), []) : [];
/** Assistant message uuid -> how many user texts the conversation held when it was printed. */
const marks = conversations && continued ? readJson(join(conversations, `${continued}.marks.json`), {}) : {};
const resumeAt = flag('--resume-session-at');
if (conversations && resumeAt) {
  if (marks[resumeAt] === undefined) {
    process.stderr.write(`No message found with message.uuid of: ${resumeAt}\n`);
    process.exit(1);
  }
  conversation.splice(marks[resumeAt]);
}

function mark(frame) {
  if (!conversations || frame?.type !== 'assistant' || typeof frame.uuid !== 'string') return;
  marks[frame.uuid] = conversation.length;
  writeFileSync(join(conversations, `${sessionId}.marks.json`), JSON.stringify(marks));
}

function remember(message) {
  if (!conversations) return;
  const content = message.message?.content;
  const text =
    typeof content === 'string'
      ? content
      : (Array.isArray(content) ? content : [])
          .filter((part) => part?.type === 'text')
          .map((part) => part.text)
          .join('\n');
  conversation.push(text);
  writeFileSync(conversationFile(sessionId), JSON.stringify(conversation));
  appendFileSync(join(conversations, 'requests.jsonl'), `${JSON.stringify({ sessionId, messages: conversation })}\n`);
}
const frameDelay = Number(env.FAKE_CLAUDE_FRAME_DELAY_MS ?? 2);

if (env.FAKE_CLAUDE_STDERR_NOISE) {
  const noise = setInterval(() => process.stderr.write('[fake claude] some debug noise on stderr\n'), 5);
  noise.unref();
}

let turnIndex = 0;
let messageCount = 0;
let running; // { interrupted: boolean }
const queue = [];

function withSession(frame) {
  return frame && typeof frame === 'object' && 'session_id' in frame ? { ...frame, session_id: sessionId } : frame;
}

async function runTurn() {
  const silent = Number(env.FAKE_CLAUDE_SILENT_TURN ?? 0) === ++messageCount;
  const frames = fixture?.turns[turnIndex] ?? [];
  if (!silent) turnIndex++;
  const turn = { interrupted: false };
  running = turn;
  if (env.FAKE_CLAUDE_GARBAGE) write('this is not json {oops');
  if (silent) {
    const init = frames.find((frame) => frame?.type === 'system' && frame.subtype === 'init');
    if (init) write(withSession(init));
    while (!turn.interrupted) await sleep(10);
  } else if (env.FAKE_CLAUDE_HANG) {
    while (!turn.interrupted) await sleep(10);
  } else {
    let written = 0;
    for (const frame of frames) {
      if (turn.interrupted) break;
      if (env.FAKE_CLAUDE_CRASH_AFTER && written >= Number(env.FAKE_CLAUDE_CRASH_AFTER)) {
        process.stderr.write('fake claude: crashing mid-turn as asked\n');
        process.exit(1);
      }
      write(withSession(frame));
      mark(frame);
      written++;
      if (written === 1 && env.FAKE_CLAUDE_INJECT) write(env.FAKE_CLAUDE_INJECT);
      if (frameDelay > 0) await sleep(frameDelay);
    }
  }
  const late = env.FAKE_CLAUDE_LATE_RESULT_MS;
  if (turn.interrupted && late && late !== 'never') await sleep(Number(late));
  if (turn.interrupted && late !== 'never') {
    write({
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
      parent_tool_use_id: null,
      session_id: sessionId,
    });
    write({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      terminal_reason: 'aborted_streaming',
      session_id: sessionId,
      usage: { input_tokens: 0, output_tokens: 0 },
      errors: [],
    });
  }
  running = undefined;
  const next = queue.shift();
  if (next) void runTurn();
}

async function onLine(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.type === 'control_request') {
    const subtype = message.request?.subtype;
    if (subtype === 'initialize' && env.FAKE_CLAUDE_SLOW_START_MS) await sleep(Number(env.FAKE_CLAUDE_SLOW_START_MS));
    if (subtype === 'interrupt' && running) running.interrupted = true;
    const response =
      subtype === 'initialize'
        ? (fixture?.initialize ?? { commands: [], models: [], account: {}, output_style: 'default' })
        : subtype === 'mcp_status' && env.FAKE_CLAUDE_MCP_STATUS
          ? { mcpServers: JSON.parse(env.FAKE_CLAUDE_MCP_STATUS) }
          : {};
    write({ type: 'control_response', response: { subtype: 'success', request_id: message.request_id, response } });
    return;
  }
  if (message.type === 'user') {
    remember(message);
    if (running) queue.push(message);
    else void runTurn();
  }
}

const input = createInterface({ input: process.stdin });
input.on('line', (line) => void onLine(line));
input.on('close', async () => {
  while (running) await sleep(10);
  process.exit(0);
});
