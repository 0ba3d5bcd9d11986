#!/usr/bin/env node
// A fake Agent Client Protocol agent for process-level tests: newline-delimited JSON-RPC on
// stdin/stdout, scripted replies per prompt, and knobs for the failures real agents show.
//
// Scenario (FAKE_ACP_SCENARIO: inline JSON or a path to a JSON file):
//   { agentInfo?, agentCapabilities?, authMethods?, models?: string[], efforts?: string[],
//     modes?: string[], setModel?: 'config' | 'set_model' | 'none',
//     replies: [{ match?: string, steps: Step[] }] }   (first reply whose match is in the prompt text)
// Steps: { update: SessionUpdate } | { text: string } | { thought: string } | { sleep: ms }
//   | { permission: { toolCall, options? } } (a cancelled/reject answer ends the turn cancelled)
//   | { readFile: path } | { writeFile: { path, content } } (relative paths are under the cwd;
//     the client's answer or error is reported back as an agent_message_chunk)
//   | { ownWrite: { path, content } } (the agent writes the file itself, as its own edit tool would: a
//     tool_call, then tool_call_update completed, or failed with the error's message)
//   | { extRequest: method } | { extNotify: method } | { garbage: text } | { stderr: text }
//   | { crash: exitCode } | { waitForCancel: true } | { error: { code, message, data? } }
//   | { replay: fixturePath, prompt?: n } (the session/update frames of the n-th prompt of a reins/v1 fixture)
//   | { stop: stopReason, usage? }  (default: end_turn after the last step)
//   | { pid: true } (an agent_message_chunk "[pid N]": which process served the turn)
//   | { foreignUpdate: sessionId } (an agent_message_chunk sent under another session's id; '$closed':
//     the session closed last on this process)
//   | { foreignRequest: sessionId } (an fs/read_text_file under another session's id; the answer is shown)
// One process serves many sessions (session/new any number of times; every frame names its session).
// Knobs (env): FAKE_ACP_SLOW_START_MS, FAKE_ACP_STDERR_NOISE=1, FAKE_ACP_GARBAGE=1 (non-JSON
//   lines on stdout), FAKE_ACP_AUTH_REQUIRED=1 (session/new -> -32000 until authenticate),
//   FAKE_ACP_HANG=1 (prompts never answer, cancel ignored), FAKE_ACP_STORE=dir (sessions persist
//   there so session/load in a new process replays them), FAKE_ACP_LOG=file (every message
//   received, one JSON per line). `--version` prints the version. session/delete works only when
//   the scenario's agentCapabilities advertise sessionCapabilities.delete; session/fork (a new id on a
//   copy of the stored history) only when they advertise sessionCapabilities.fork
//   (FAKE_ACP_FORK_SAME_ID=1: it answers the source's id, as a broken agent would).
// Sign-in: FAKE_ACP_AUTH_STATE=file keeps the signed-in state across processes (authenticate writes
//   the file, as an agent stores its own credential; session/new needs it under
//   FAKE_ACP_AUTH_REQUIRED); FAKE_ACP_AUTH_HANG=1 (authenticate waits for a user who never comes);
//   `--login` signs in and exits 0 (what a terminal method runs). The scenario's
//   `terminalAuthMethods` are listed only to a client that says clientCapabilities.auth.terminal
//   (as claude-agent-acp 0.23.1 does), and authenticate refuses them (the protocol forbids sending them);
//   `authErrors: { methodId: {code, message} }` makes authenticate refuse that method.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { createInterface } from 'node:readline';

const VERSION = '0.0.7';
if (process.argv.includes('--version')) {
  process.stdout.write(`fake-acp-agent ${VERSION}\n`);
  process.exit(0);
}

const env = process.env;
if (process.argv.includes('--login')) {
  if (env.FAKE_ACP_AUTH_STATE) writeFileSync(env.FAKE_ACP_AUTH_STATE, 'signed in by --login\n');
  process.stdout.write('Signed in.\n');
  process.exit(env.FAKE_ACP_AUTH_STATE ? 0 : 1);
}
const scenario = loadScenario();
const store = env.FAKE_ACP_STORE;
if (store) mkdirSync(store, { recursive: true });

function loadScenario() {
  const raw = env.FAKE_ACP_SCENARIO;
  if (!raw) return {};
  return JSON.parse(raw.trim().startsWith('{') ? raw : readFileSync(raw, 'utf8'));
}

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let nextId = 1;
const waiting = new Map();
function request(method, params) {
  const id = nextId++;
  send({ id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

const sessions = new Map();
let authenticated = false;
let forks = 0;
let created = 0;
let lastClosed;
const isAuthenticated = () => authenticated || Boolean(env.FAKE_ACP_AUTH_STATE && existsSync(env.FAKE_ACP_AUTH_STATE));
let terminalAuth = false;
const terminalMethods = () => (terminalAuth ? (scenario.terminalAuthMethods ?? []) : []);
const models = scenario.models ?? ['fake-model', 'fake-model-2'];
const efforts = scenario.efforts ?? ['low', 'medium', 'high'];
const modes = scenario.modes ?? ['default', 'plan'];
const setModelVia = scenario.setModel ?? 'config';

function configOptions(session) {
  const options = [];
  if (setModelVia === 'config') {
    options.push({
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: session.model,
      options: models.map((value) => ({ value, name: value })),
    });
  }
  if (efforts.length > 0) {
    options.push({
      id: 'effort',
      name: 'Effort',
      category: 'thought_level',
      type: 'select',
      currentValue: session.effort,
      options: efforts.map((value) => ({ value, name: value })),
    });
  }
  options.push({
    id: 'mode',
    name: 'Mode',
    category: 'mode',
    type: 'select',
    currentValue: session.mode,
    options: modes.map((value) => ({ value, name: value })),
  });
  return options;
}

function setup(session) {
  const out = { configOptions: configOptions(session) };
  if (setModelVia === 'set_model') {
    out.models = {
      currentModelId: session.model,
      availableModels: models.map((modelId) => ({ modelId, name: modelId })),
    };
  }
  return out;
}

function persist(session) {
  if (!store) return;
  writeFileSync(
    join(store, `${session.id}.json`),
    JSON.stringify({ id: session.id, cwd: session.cwd, history: session.history, title: session.title }),
  );
}

function newSession(cwd, id = `fake-session-${process.pid}-${++created}`) {
  const session = {
    id,
    cwd,
    model: models[0],
    effort: efforts[1] ?? efforts[0],
    mode: modes[0],
    history: [],
    cancelled: false,
    cancelWaiters: [],
    title: undefined,
  };
  sessions.set(id, session);
  return session;
}

function update(session, value, record = true) {
  send({ method: 'session/update', params: { sessionId: session.id, update: value } });
  if (record) session.history.push(value);
}

let ownWrites = 0;

function pathIn(session, path) {
  return isAbsolute(path) ? path : join(session.cwd, path);
}

function replayFrames(path, promptIndex) {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const out = [];
  let prompt = 0;
  for (const line of lines) {
    const frame = line.frame ?? line;
    if (line.dir === 'in' && frame.method === 'session/prompt') prompt++;
    if (prompt === promptIndex && line.dir === 'out' && frame.method === 'session/update')
      out.push(frame.params.update);
  }
  return out;
}

async function runPrompt(session, params) {
  const text = (params.prompt ?? []).map((block) => block.text ?? block.uri ?? '').join('\n');
  session.history.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } });
  session.cancelled = false;
  if (env.FAKE_ACP_HANG) return new Promise(() => {});
  const reply = (scenario.replies ?? []).find((entry) => !entry.match || text.includes(entry.match));
  const steps = reply?.steps ?? [{ text: `echo: ${text}` }];
  if (env.FAKE_ACP_GARBAGE) process.stdout.write('this is not json {\n');
  for (const step of steps) {
    if (session.cancelled) return { stopReason: 'cancelled' };
    if (step.update) update(session, step.update);
    else if (step.text !== undefined)
      update(session, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: step.text } });
    else if (step.thought !== undefined)
      update(session, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: step.thought } });
    else if (step.sleep)
      await Promise.race([sleep(step.sleep), new Promise((resolve) => session.cancelWaiters.push(resolve))]);
    else if (step.permission) {
      const options = step.permission.options ?? [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ];
      const answer = await request('session/request_permission', {
        sessionId: session.id,
        toolCall: step.permission.toolCall,
        options,
      });
      const outcome = answer.result?.outcome;
      const chosen = options.find((option) => option.optionId === outcome?.optionId);
      update(session, {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: `[permission ${outcome?.outcome}:${outcome?.optionId ?? ''}]` },
      });
      if (!chosen || chosen.kind.startsWith('reject')) return { stopReason: 'cancelled' };
    } else if (step.readFile) {
      const answer = await request('fs/read_text_file', {
        sessionId: session.id,
        path: pathIn(session, step.readFile),
      });
      const shown = answer.error
        ? `[read error ${answer.error.code}: ${answer.error.message}]`
        : `[read ${JSON.stringify(answer.result.content)}]`;
      update(session, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: shown } });
    } else if (step.writeFile) {
      const answer = await request('fs/write_text_file', {
        sessionId: session.id,
        path: pathIn(session, step.writeFile.path),
        content: step.writeFile.content,
      });
      const shown = answer.error ? `[write error ${answer.error.code}: ${answer.error.message}]` : '[written]';
      update(session, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: shown } });
    } else if (step.ownWrite) {
      const path = pathIn(session, step.ownWrite.path);
      const toolCallId = `own_write_${++ownWrites}`;
      update(session, {
        sessionUpdate: 'tool_call',
        toolCallId,
        title: `Write ${path}`,
        kind: 'edit',
        status: 'in_progress',
        rawInput: { path },
      });
      let failure;
      try {
        writeFileSync(path, step.ownWrite.content);
      } catch (error) {
        failure = error.message;
      }
      update(session, {
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: failure ? 'failed' : 'completed',
        content: [{ type: 'content', content: { type: 'text', text: failure ?? `wrote ${path}` } }],
      });
    } else if (step.extRequest) {
      const answer = await request(step.extRequest, { sessionId: session.id });
      update(session, {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: `[ext ${answer.error?.code ?? 'ok'}]` },
      });
    } else if (step.extNotify) send({ method: step.extNotify, params: { sessionId: session.id, v: 1 } });
    else if (step.garbage !== undefined) process.stdout.write(`${step.garbage}\n`);
    else if (step.stderr !== undefined) process.stderr.write(`${step.stderr}\n`);
    else if (step.pid)
      update(session, {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: `[pid ${process.pid}]` },
      });
    else if (step.foreignUpdate !== undefined)
      send({
        method: 'session/update',
        params: {
          sessionId: step.foreignUpdate === '$closed' ? lastClosed : step.foreignUpdate,
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'not yours' } },
        },
      });
    else if (step.foreignRequest !== undefined) {
      const answer = await request('fs/read_text_file', { sessionId: step.foreignRequest, path: '/etc/hostname' });
      const shown = answer.error ? `[foreign error ${answer.error.code}]` : '[foreign answered]';
      update(session, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: shown } });
    } else if (step.crash !== undefined) process.exit(step.crash);
    else if (step.waitForCancel) {
      await new Promise((resolve) => session.cancelWaiters.push(resolve));
      return { stopReason: 'cancelled' };
    } else if (step.error) {
      persist(session);
      throw step.error;
    } else if (step.replay) {
      for (const frame of replayFrames(step.replay, step.prompt ?? 1)) update(session, frame);
    } else if (step.stop) {
      persist(session);
      return { stopReason: step.stop, ...(step.usage ? { usage: step.usage } : {}) };
    }
  }
  persist(session);
  return { stopReason: session.cancelled ? 'cancelled' : 'end_turn' };
}

async function handle(message) {
  const { method, params = {} } = message;
  switch (method) {
    case 'initialize':
      terminalAuth = params.clientCapabilities?.auth?.terminal === true;
      return {
        protocolVersion: 1,
        agentInfo: scenario.agentInfo ?? { name: 'fake-acp-agent', title: 'Fake ACP agent', version: VERSION },
        agentCapabilities: scenario.agentCapabilities ?? {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
        authMethods: [
          ...(scenario.authMethods ?? (env.FAKE_ACP_AUTH_REQUIRED ? [{ id: 'fake-login', name: 'Fake login' }] : [])),
          ...terminalMethods(),
        ],
      };
    case 'authenticate':
      if (terminalMethods().some((method) => method.id === params.methodId))
        throw { code: -32602, message: `${params.methodId} runs in a terminal, not through authenticate` };
      if (scenario.authErrors?.[params.methodId]) throw scenario.authErrors[params.methodId];
      if (env.FAKE_ACP_AUTH_HANG) return new Promise(() => {});
      authenticated = true;
      if (env.FAKE_ACP_AUTH_STATE) writeFileSync(env.FAKE_ACP_AUTH_STATE, `signed in with ${params.methodId}\n`);
      return {};
    case 'session/new': {
      if (env.FAKE_ACP_AUTH_REQUIRED && !isAuthenticated()) throw { code: -32000, message: 'Authentication required' };
      const session = newSession(params.cwd);
      persist(session);
      setTimeout(
        () =>
          update(
            session,
            { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'init', description: 'init' }] },
            false,
          ),
        5,
      );
      return { sessionId: session.id, ...setup(session) };
    }
    case 'session/load':
    case 'session/resume': {
      const file = store ? join(store, `${params.sessionId}.json`) : undefined;
      if (!file || !existsSync(file)) throw { code: -32002, message: `Resource not found: ${params.sessionId}` };
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      const session = newSession(params.cwd, saved.id);
      session.history = saved.history;
      if (method === 'session/load') for (const entry of saved.history) update(session, entry, false);
      return setup(session);
    }
    case 'session/fork': {
      if (!scenario.agentCapabilities?.sessionCapabilities?.fork) {
        throw { code: -32601, message: `"Method not found": ${method}`, data: { method } };
      }
      const file = store ? join(store, `${params.sessionId}.json`) : undefined;
      const saved = file && existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : sessions.get(params.sessionId);
      if (!saved) throw { code: -32002, message: `Resource not found: ${params.sessionId}` };
      const id = env.FAKE_ACP_FORK_SAME_ID ? params.sessionId : `fake-fork-${process.pid}-${++forks}`;
      const session = newSession(params.cwd, id);
      session.history = structuredClone(saved.history);
      persist(session);
      return { sessionId: session.id, ...setup(session) };
    }
    case 'session/list': {
      const files = store ? readdirSync(store).filter((name) => name.endsWith('.json')) : [];
      const all = files.map((name) => JSON.parse(readFileSync(join(store, name), 'utf8')));
      return {
        sessions: all
          .filter((s) => !params.cwd || s.cwd === params.cwd)
          .map((s) => ({ sessionId: s.id, cwd: s.cwd, title: s.title ?? null, updatedAt: '2026-01-02T03:04:05.000Z' })),
      };
    }
    case 'session/close':
      sessions.delete(params.sessionId);
      lastClosed = params.sessionId;
      return {};
    case 'session/delete': {
      // Only for scenarios that advertise sessionCapabilities.delete: the stored session is gone.
      if (!scenario.agentCapabilities?.sessionCapabilities?.delete) {
        throw { code: -32601, message: `"Method not found": ${method}`, data: { method } };
      }
      sessions.delete(params.sessionId);
      const file = store ? join(store, `${params.sessionId}.json`) : undefined;
      if (file && existsSync(file)) rmSync(file);
      return {};
    }
    case 'session/prompt': {
      const session = sessions.get(params.sessionId);
      if (!session) throw { code: -32002, message: `Session not found: ${params.sessionId}` };
      return runPrompt(session, params);
    }
    case 'session/set_config_option': {
      const session = sessions.get(params.sessionId);
      if (!session) throw { code: -32002, message: 'Session not found' };
      if (params.configId === 'model') {
        if (!models.includes(params.value)) throw { code: -32602, message: `Unknown model ${params.value}` };
        session.model = params.value;
      } else if (params.configId === 'effort') session.effort = params.value;
      else if (params.configId === 'mode') session.mode = params.value;
      else throw { code: -32602, message: `Unknown config option ${params.configId}` };
      return { configOptions: configOptions(session) };
    }
    case 'session/set_model': {
      if (setModelVia === 'none') throw { code: -32601, message: `"Method not found": ${method}` };
      const session = sessions.get(params.sessionId);
      if (!models.includes(params.modelId)) throw { code: -32602, message: `Unknown model ${params.modelId}` };
      session.model = params.modelId;
      return {};
    }
    default:
      throw { code: -32601, message: `"Method not found": ${method}`, data: { method } };
  }
}

function onMessage(message) {
  if (env.FAKE_ACP_LOG) appendFileSync(env.FAKE_ACP_LOG, `${JSON.stringify(message)}\n`);
  if (message.method === undefined) {
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve?.(message);
    return;
  }
  if (message.id === undefined) {
    if (message.method === 'session/cancel' && !env.FAKE_ACP_HANG) {
      const session = sessions.get(message.params?.sessionId);
      if (session) {
        session.cancelled = true;
        for (const resolve of session.cancelWaiters.splice(0)) resolve();
      }
    }
    return;
  }
  Promise.resolve()
    .then(() => handle(message))
    .then(
      (result) => send({ id: message.id, result: result ?? null }),
      (error) =>
        send({
          id: message.id,
          error: {
            code: error.code ?? -32603,
            message: error.message ?? String(error),
            ...(error.data ? { data: error.data } : {}),
          },
        }),
    );
}

async function main() {
  if (env.FAKE_ACP_STDERR_NOISE)
    process.stderr.write('fake-acp-agent: warming up\nDeprecationWarning: something old\n');
  if (env.FAKE_ACP_SLOW_START_MS) await sleep(Number(env.FAKE_ACP_SLOW_START_MS));
  if (env.FAKE_ACP_GARBAGE) process.stdout.write('Welcome banner that is not JSON\n');
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    onMessage(JSON.parse(line));
  });
  lines.on('close', () => process.exit(0));
}

main();
