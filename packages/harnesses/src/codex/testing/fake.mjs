#!/usr/bin/env node
// A fake `codex app-server` for process-level tests: it speaks the real wire (newline-delimited
// JSON-RPC without a "jsonrpc" member) by replaying a transcript recorded from the real CLI with the
// testkit's fixture recorder (a reins/v1 fixture: header with the Codex version; then {dir, t, frame} lines).
//
// Replay: each message the client sends (a request, a notification, or its answer to one of our
// requests) is matched to the next recorded client message of the same kind (same method, or an
// answer); the server frames recorded after that one, up to the next recorded client message, are
// written back. The recorded response to the matched request gets the live request's id. A request
// with no match gets the error Codex gives an unknown method.
//
// Knobs (environment):
//   FAKE_CODEX_TRANSCRIPT   path of the fixture to replay (required for app-server)
//   FAKE_CODEX_CRASH_AFTER  a server method: exit(70) right after writing the first frame with it
//   FAKE_CODEX_HANG         a client method: never answer it (nor anything after it)
//   FAKE_CODEX_GARBAGE      "1": write a line that is not JSON before replaying each batch
//   FAKE_CODEX_STDERR       "1": write noise to stderr at start and before each batch
//   FAKE_CODEX_SLOW_START_MS  wait this long before reading stdin
//   FAKE_CODEX_FRAME_DELAY_MS delay between replayed frames (default 1)
//   FAKE_CODEX_INJECT       JSON, one frame or an array of frames: written right after the first frame whose
//                           method is FAKE_CODEX_INJECT_AFTER (default turn/started); the strings "{{threadId}}"
//                           and "{{turnId}}" in them become that frame's thread and turn ids
//   FAKE_CODEX_SILENT_AFTER a server method: after the first frame with it, the rest of that batch is dropped
//                           (the turn was accepted, then nothing); later requests are answered as recorded
//   FAKE_CODEX_CHATTER_MS   with FAKE_CODEX_SILENT_AFTER: once silent, an unrelated notification (an empty
//                           account/rateLimits/updated) every this many ms, whatever else happens
//   FAKE_CODEX_HOLD_TURN    n: the n-th turn/start (1-based) uses no recording: it is answered and started
//                           (the first recorded turn's frames under a new turn id) and then stays open until a
//                           turn/interrupt, which ends it `interrupted` as Codex does (the interrupt fixture)
//   FAKE_CODEX_CLIENT_LOG   a file: each request the client sends is appended to it as one JSON line
//                           {pid, method, params} (tests read which process got which thread/start)
// Several threads on one process (a shared app-server): the first thread/start replays the recording
// as it is; each further thread/start opens a new lane that replays the recording's thread-scoped
// exchanges again under a thread id of its own (the recorded id with "-2", "-3", ... appended to it).
// A client message with params.threadId is matched within its thread's lane; one without (initialize,
// an answer to a request) within the first lane, or an answer within the lane that sent the request.
// `--version` prints "codex-cli <version of the transcript>" (or 0.0.0-fake without one).
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const env = process.env;
const transcriptPath = env.FAKE_CODEX_TRANSCRIPT;
const lines = transcriptPath
  ? readFileSync(transcriptPath, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line))
  : [];
const header = lines[0]?.format === 'reins/v1' ? lines.shift() : undefined;

if (process.argv.includes('--version')) {
  process.stdout.write(`codex-cli ${header?.version ?? '0.0.0-fake'}\n`);
  process.exit(0);
}
if (!transcriptPath) {
  process.stderr.write('fake codex: set FAKE_CODEX_TRANSCRIPT to a recorded fixture\n');
  process.exit(2);
}

/** Recorded client messages, each with the server frames that followed it. */
const exchanges = [];
let current = { client: undefined, server: [] };
for (const line of lines) {
  if (line.dir === 'in') {
    exchanges.push(current);
    current = { client: line.frame, server: [] };
  } else if (line.dir === 'out') {
    current.server.push(line.frame);
  }
}
exchanges.push(current);
const preamble = exchanges.shift();

/** The recorded thread id (from the first thread/start answer): each lane replays it under its own. */
const recordedThreadId = (() => {
  for (const exchange of exchanges) {
    if (exchange.client?.method !== 'thread/start') continue;
    const answer = exchange.server.find((frame) => frame.id === exchange.client.id && frame.result);
    if (typeof answer?.result?.thread?.id === 'string') return answer.result.thread.id;
  }
  return undefined;
})();
/** Lanes: 0 replays the recording as it is; lane k>0 a further thread, its id suffixed "-<k+1>". */
const lanes = [{ used: new Set(), threadId: recordedThreadId }];
const laneOfThread = new Map(recordedThreadId ? [[recordedThreadId, 0]] : []);
/** Server request id -> the lane that sent it (its answer is matched there). */
const laneOfRequest = new Map();

const kindOf = (message) => (typeof message?.method === 'string' ? `m:${message.method}` : 'answer');
const delayMs = Number(env.FAKE_CODEX_FRAME_DELAY_MS ?? 1);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let hung = false;
let chain = Promise.resolve();

let injected = false;
let silenced = false;

/** The frames of FAKE_CODEX_INJECT, with the ids of the frame they follow filled in. */
function injection(after) {
  const ids = { threadId: after.params?.threadId ?? '', turnId: after.params?.turn?.id ?? after.params?.turnId ?? '' };
  const filled = env.FAKE_CODEX_INJECT.replace(/\{\{(threadId|turnId)\}\}/g, (_, key) => ids[key]);
  const parsed = JSON.parse(filled);
  return Array.isArray(parsed) ? parsed : [parsed];
}

function write(frame) {
  process.stdout.write(`${typeof frame === 'string' ? frame : JSON.stringify(frame)}\n`);
  if (env.FAKE_CODEX_CRASH_AFTER && frame?.method === env.FAKE_CODEX_CRASH_AFTER) {
    process.stderr.write('fake codex: crashing as asked (FAKE_CODEX_CRASH_AFTER)\n');
    process.exit(70);
  }
  if (env.FAKE_CODEX_INJECT && !injected && frame?.method === (env.FAKE_CODEX_INJECT_AFTER ?? 'turn/started')) {
    injected = true;
    for (const extra of injection(frame)) process.stdout.write(`${JSON.stringify(extra)}\n`);
  }
}

/** True once, right after the first frame with FAKE_CODEX_SILENT_AFTER's method: drop the rest of the batch. */
function goesSilentAfter(frame) {
  if (!env.FAKE_CODEX_SILENT_AFTER || silenced || frame?.method !== env.FAKE_CODEX_SILENT_AFTER) return false;
  silenced = true;
  const chatterMs = Number(env.FAKE_CODEX_CHATTER_MS ?? 0);
  if (chatterMs > 0) setInterval(() => write(RATE_LIMITS_NOTHING_TO_SAY), chatterMs).unref();
  return true;
}

/** A frame about the account, not any turn (Codex 0.169 sends it after every turn). */
const RATE_LIMITS_NOTHING_TO_SAY = {
  method: 'account/rateLimits/updated',
  params: { rateLimits: { limitId: 'codex', limitName: null, primary: null, secondary: null, credits: null } },
};

/** A recorded frame as lane `lane` sends it: the recorded thread id replaced by the lane's. */
function inLane(frame, lane) {
  if (lane === 0 || recordedThreadId === undefined || typeof frame === 'string') return frame;
  return JSON.parse(JSON.stringify(frame).split(recordedThreadId).join(lanes[lane].threadId));
}

async function replay(frames, recordedId, liveId, lane = 0) {
  if (env.FAKE_CODEX_GARBAGE === '1') write('this is not json {');
  if (env.FAKE_CODEX_STDERR === '1') process.stderr.write('fake codex: some stderr noise\n');
  for (const recorded of frames) {
    const frame = inLane(recorded, lane);
    const isOurResponse = recordedId !== undefined && frame.id === recordedId && !('method' in frame);
    if (typeof frame?.method === 'string' && frame.id !== undefined) laneOfRequest.set(frame.id, lane);
    write(isOurResponse ? { ...frame, id: liveId } : frame);
    if (goesSilentAfter(frame)) return;
    if (delayMs > 0) await sleep(delayMs);
  }
}

let turnStarts = 0;
/** The turn FAKE_CODEX_HOLD_TURN holds open: its thread id and turn object. */
let heldTurn;

/** The first recorded turn/start's answer and turn/started, under `liveId` and a new turn id, in `lane`. */
function holdTurn(message, lane) {
  const exchange = exchanges.find((candidate) => candidate.client?.method === 'turn/start');
  const answer = exchange?.server.find((frame) => frame.id === exchange.client.id && frame.result?.turn);
  const started = exchange?.server.find((frame) => frame.method === 'turn/started');
  if (!answer || !started) {
    write({ error: { code: -32600, message: 'fake codex: no recorded turn to hold open' }, id: message.id });
    return;
  }
  const recordedTurnId = answer.result.turn.id;
  const held = (frame) =>
    JSON.parse(JSON.stringify(inLane(frame, lane)).split(recordedTurnId).join(`${recordedTurnId}-held`));
  const threadId = inLane(started, lane).params.threadId;
  heldTurn = { threadId, turn: held(started).params.turn };
  chain = chain.then(() => {
    write({ ...held(answer), id: message.id });
    write({ method: 'thread/status/changed', params: { threadId, status: { type: 'active', activeFlags: [] } } });
    write(held(started));
  });
}

/** A turn/interrupt of the held turn: answered, then the turn completes interrupted. */
function interruptHeld(message) {
  const { threadId, turn } = heldTurn;
  heldTurn = undefined;
  chain = chain.then(() => {
    write({ id: message.id, result: {} });
    write({ method: 'thread/status/changed', params: { threadId, status: { type: 'idle' } } });
    write({ method: 'turn/completed', params: { threadId, turn: { ...turn, status: 'interrupted' } } });
  });
}

function handle(message) {
  if (env.FAKE_CODEX_CLIENT_LOG && typeof message?.method === 'string') {
    appendFileSync(
      env.FAKE_CODEX_CLIENT_LOG,
      `${JSON.stringify({ pid: process.pid, method: message.method, params: message.params })}\n`,
    );
  }
  if (hung) return;
  if (message?.method === 'turn/start' && ++turnStarts === Number(env.FAKE_CODEX_HOLD_TURN ?? 0)) {
    holdTurn(message, laneOf(message, 'm:turn/start'));
    return;
  }
  if (message?.method === 'turn/interrupt' && heldTurn) {
    interruptHeld(message);
    return;
  }
  if (env.FAKE_CODEX_HANG && message?.method === env.FAKE_CODEX_HANG) {
    hung = true;
    return;
  }
  const kind = kindOf(message);
  const lane = laneOf(message, kind);
  const used = lanes[lane].used;
  const index = exchanges.findIndex((exchange, i) => !used.has(i) && kindOf(exchange.client) === kind);
  if (index === -1) {
    if (message?.id !== undefined && typeof message.method === 'string') {
      write({ error: { code: -32600, message: `fake codex: nothing recorded for ${message.method}` }, id: message.id });
    }
    return;
  }
  used.add(index);
  const exchange = exchanges[index];
  chain = chain.then(() => replay(exchange.server, exchange.client?.id, message?.id, lane));
}

/** The lane a client message belongs to; a thread/start after the first opens a new one. */
function laneOf(message, kind) {
  const threadId = message?.params?.threadId;
  if (typeof threadId === 'string' && laneOfThread.has(threadId)) return laneOfThread.get(threadId);
  if (kind === 'answer') return laneOfRequest.get(message.id) ?? 0;
  if (kind !== 'm:thread/start' || recordedThreadId === undefined) return 0;
  const first = lanes[0].used;
  const starts = exchanges.filter((exchange) => exchange.client?.method === 'thread/start').length;
  const usedStarts = exchanges.filter((exchange, i) => first.has(i) && exchange.client?.method === 'thread/start');
  if (usedStarts.length < starts) return 0;
  const lane = lanes.length;
  // A new lane replays only thread-scoped exchanges: the process-wide ones (initialize) are used up.
  const processWide = (client) =>
    typeof client?.method === 'string' && client.method !== 'thread/start' && !client.params?.threadId;
  const used = new Set(exchanges.flatMap((exchange, i) => (processWide(exchange.client) ? [i] : [])));
  lanes.push({ used, threadId: `${recordedThreadId}-${lane + 1}` });
  laneOfThread.set(lanes[lane].threadId, lane);
  return lane;
}

async function main() {
  if (env.FAKE_CODEX_STDERR === '1') process.stderr.write('fake codex: starting\n');
  const slow = Number(env.FAKE_CODEX_SLOW_START_MS ?? 0);
  if (slow > 0) await sleep(slow);
  if (preamble?.server.length) await replay(preamble.server);
  const input = createInterface({ input: process.stdin });
  input.on('line', (line) => {
    if (line.trim() === '') return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    handle(message);
  });
  // Like Codex: closing stdin ends the server.
  input.on('close', () => chain.then(() => process.exit(0)));
}

main();
