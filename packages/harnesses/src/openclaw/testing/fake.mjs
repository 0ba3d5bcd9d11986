#!/usr/bin/env node
// A fake `openclaw gateway run` for process-level tests: a WebSocket server speaking the gateway's
// protocol v4 as openclaw 2026.9.6 does (docs/harnesses/openclaw.md, the adapter's
// fixtures): connect.challenge -> connect (token checked) -> hello-ok; req/res frames; `chat` and
// `agent` events. It hosts many session keys, and like the real gateway it sends every session's
// events to every operator connection (each client filters by sessionKey and runId).
//
// Turns: chat.send answers {runId} at once, then streams the reply `echo: <message>` as `agent`
// assistant deltas and ends with `chat` final; the transcript (chat.history) keeps the user message
// and the assistant reply with its usage under __openclaw.runId. Scripted messages:
//   "stall"  one delta, then nothing until chat.abort (-> `chat` aborted, stopReason "rpc")
//   "crash"  the gateway exits 70 (every connection drops)
//
// Arguments: `gateway run --port P --token T ...` (the rest is ignored). Knobs (environment):
//   FAKE_OPENCLAW_START_MS        wait this long before listening (the real one opens its port after 15-19 s)
//   FAKE_OPENCLAW_UNAVAILABLE_MS  after listening, answer connect with retryable UNAVAILABLE this long
//   FAKE_OPENCLAW_LOG             append "start <pid> <cwd>" when listening, "chat <pid> <sessionKey>" per
//                                 chat.send and "exit <pid>" on a clean stop
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { WebSocketServer } from 'ws';

const argv = process.argv.slice(2);
const flag = (name) => {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
};
if (argv[0] === '--version') {
  process.stdout.write('OpenClaw 2026.9.6-fake\n');
  process.exit(0);
}
if (argv[0] !== 'gateway' || argv[1] !== 'run') {
  process.stderr.write(`fake openclaw: only "gateway run" is implemented, got ${argv.join(' ')}\n`);
  process.exit(2);
}
const port = Number(flag('--port'));
const token = flag('--token');
const startMs = Number(process.env.FAKE_OPENCLAW_START_MS ?? 0);
const unavailableMs = Number(process.env.FAKE_OPENCLAW_UNAVAILABLE_MS ?? 0);
const log = (line) => {
  if (process.env.FAKE_OPENCLAW_LOG) appendFileSync(process.env.FAKE_OPENCLAW_LOG, `${line}\n`);
};

/** sessionKey -> { messages, model, thinkingLevel, running: runId | undefined } */
const sessions = new Map();
const clients = new Set();
let seq = 0;
let readyAt = 0;

const send = (socket, frame) => {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
};
const broadcast = (event, payload) => {
  seq += 1;
  for (const socket of clients) send(socket, { type: 'event', event, payload, seq });
};
const sessionOf = (key) => {
  let session = sessions.get(key);
  if (!session) {
    session = { messages: [], running: undefined, updatedAt: Date.now() };
    sessions.set(key, session);
  }
  return session;
};

function runTurn(key, runId, message) {
  const session = sessionOf(key);
  session.running = runId;
  session.messages.push({ role: 'user', content: message, timestamp: Date.now() });
  const itemId = `${runId}:assistant`;
  const agent = (stream, data) => broadcast('agent', { runId, sessionKey: key, stream, data });
  agent('lifecycle', { phase: 'start' });
  if (message === 'crash') {
    process.stderr.write('fake openclaw: crashing as asked\n');
    process.exit(70);
  }
  if (message === 'stall') {
    agent('assistant', { itemId, delta: 'thinking slowly' });
    return;
  }
  const text = `echo: ${message}`;
  const words = text.split(/(?<= )/);
  let at = 0;
  const next = () => {
    if (session.running !== runId) return;
    if (at < words.length) {
      agent('assistant', { itemId, delta: words[at] });
      at += 1;
      setTimeout(next, 2);
      return;
    }
    session.running = undefined;
    const reply = {
      role: 'assistant',
      content: [{ type: 'text', text }],
      usage: { input: 10, output: words.length, totalTokens: 10 + words.length },
      __openclaw: { runId },
    };
    session.messages.push(reply);
    session.updatedAt = Date.now();
    broadcast('chat', { runId, sessionKey: key, state: 'final', stopReason: 'stop', message: reply });
  };
  setTimeout(next, 2);
}

const methods = {
  'sessions.list': () => ({
    sessions: [...sessions].map(([key, session]) => ({ key, updatedAt: session.updatedAt })),
  }),
  'chat.send': (params) => {
    const key = params?.sessionKey;
    const runId = params?.idempotencyKey ?? randomUUID();
    if (typeof key !== 'string' || typeof params?.message !== 'string') throw invalid('sessionKey and message');
    log(`chat ${process.pid} ${key}`);
    if (params.queueMode === 'steer') return { runId };
    setImmediate(() => runTurn(key, runId, params.message));
    return { runId };
  },
  'chat.abort': (params) => {
    const session = sessions.get(params?.sessionKey);
    if (!session || session.running !== params?.runId) return { aborted: false };
    session.running = undefined;
    setImmediate(() =>
      broadcast('chat', { runId: params.runId, sessionKey: params.sessionKey, state: 'aborted', stopReason: 'rpc' }),
    );
    return { aborted: true };
  },
  'chat.history': (params) => ({ messages: sessions.get(params?.sessionKey)?.messages ?? [] }),
  'sessions.patch': (params) => {
    if (typeof params?.key !== 'string') throw invalid('key');
    Object.assign(sessionOf(params.key), params.model ? { model: params.model } : {});
    return { ok: true, key: params.key };
  },
};

function invalid(what) {
  return { code: 'INVALID_REQUEST', message: `invalid params: ${what}` };
}

function onConnection(socket) {
  let connected = false;
  socket.on('message', (data) => {
    let frame;
    try {
      frame = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (frame?.type !== 'req') return;
    if (frame.method === 'connect') {
      if (Date.now() < readyAt) {
        send(socket, {
          type: 'res',
          id: frame.id,
          ok: false,
          error: { code: 'UNAVAILABLE', message: 'gateway starting', retryable: true, retryAfterMs: 100 },
        });
        socket.close(1013, 'startup-sidecars');
        return;
      }
      if (token && frame.params?.auth?.token !== token) {
        send(socket, { type: 'res', id: frame.id, ok: false, error: { code: 'UNAUTHORIZED', message: 'bad token' } });
        socket.close(1008, 'unauthorized');
        return;
      }
      connected = true;
      clients.add(socket);
      send(socket, {
        type: 'res',
        id: frame.id,
        ok: true,
        payload: {
          type: 'hello-ok',
          protocol: 4,
          server: { version: '2026.9.6-fake', connId: randomUUID() },
          features: { methods: Object.keys(methods), events: ['chat', 'agent'] },
        },
      });
      return;
    }
    if (!connected) return;
    const method = methods[frame.method];
    if (!method) {
      send(socket, { type: 'res', id: frame.id, ok: false, error: invalid(`unknown method ${frame.method}`) });
      return;
    }
    try {
      send(socket, { type: 'res', id: frame.id, ok: true, payload: method(frame.params) });
    } catch (error) {
      send(socket, { type: 'res', id: frame.id, ok: false, error });
    }
  });
  socket.on('close', () => clients.delete(socket));
  send(socket, { type: 'event', event: 'connect.challenge', payload: { nonce: randomUUID(), ts: Date.now() } });
}

setTimeout(() => {
  const server = new WebSocketServer({ host: '127.0.0.1', port });
  server.on('listening', () => {
    readyAt = Date.now() + unavailableMs;
    log(`start ${process.pid} ${process.cwd()}`);
  });
  server.on('error', (error) => {
    process.stderr.write(`fake openclaw: ${error.message}\n`);
    process.exit(1);
  });
  server.on('connection', onConnection);
  const stop = () => {
    log(`exit ${process.pid}`);
    for (const socket of clients) socket.terminate();
    server.close(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}, startMs);
