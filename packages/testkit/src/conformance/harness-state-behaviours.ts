// Conformance behaviours about what a harness keeps beside the turn itself: the MCP servers a session
// attached (`mcpStatus`), a fork of a conversation (`fork`) and the conversations it stores on disk
// (`sessionList`, `history`). Each costs one or two short turns: the suite runs on every pinned CLI.
// A harness that cannot do one says so with `unsupported_capability`: that is the honest refusal
// (a HarnessLimitation), recorded as not observed.
import { type McpServerStatus, ReinsError, type Session, type TurnCompletedEvent } from '@reins/core';
import { reply } from '../model-server/index.js';
import { type Behaviour, check, fail, honestly, limitation } from './behaviour-kit.js';
import { ECHO_TOOL, echoMcpServer } from './mcp-echo.js';
import type { SessionRecorder } from './recorder.js';

/** How long a harness may take to start the echo server (a cold `node` on a loaded 2-core machine). */
const MCP_SETTLE_MS = 60_000;
const MCP_POLL_MS = 250;

/**
 * Asks until the named server is no longer `pending` (Claude Code and Codex start MCP servers in the
 * background), or the deadline passes; returns the last answer.
 */
async function settledServer(session: Session, name: string): Promise<McpServerStatus | undefined> {
  const ask = session.mcpStatus?.bind(session);
  if (!ask) limitation('the session has no mcpStatus(): the harness reports no MCP server status');
  const until = Date.now() + MCP_SETTLE_MS;
  for (;;) {
    const status = await honestly(ask, 'mcpStatus()');
    const entry = status.find((server) => server.name === name);
    if ((entry && entry.status !== 'pending') || Date.now() > until) return entry;
    await new Promise((resolve) => setTimeout(resolve, MCP_POLL_MS));
  }
}

const FORK_WORD = 'HERON-2291';
const FORK_FIRST = `Remember the fork word ${FORK_WORD}.`;
const FORK_QUESTION = 'Which fork word did I give you?';
const HISTORY_TEXT = 'Keep this line for the history check.';
const HISTORY_REPLY = 'Kept for the history check.';

export const HARNESS_STATE_BEHAVIOURS: Behaviour[] = [
  {
    name: 'mcp server status',
    evidences: 'mcpStatus',
    requires: ['mcpStatus'],
    async run({ server, open }) {
      // One short turn first: some harnesses start the native session (and its MCP servers) lazily.
      server.enqueue(reply().text('Ready with the echo server.'));
      const recorder = await open({ mcpServers: [echoMcpServer('echo')] });
      const terminal = await recorder.turn('Say you are ready.');
      check(terminal.outcome.status === 'completed', `outcome ${JSON.stringify(terminal.outcome)}`);
      const echo = await settledServer(recorder.session, 'echo');
      check(echo, 'mcpStatus() does not list the MCP server "echo" passed in the spec');
      check(
        echo.status === 'connected',
        `the MCP server "echo" is ${echo.status}${echo.error ? ` (${echo.error})` : ''}, not connected`,
      );
      check(
        echo.tools?.includes(ECHO_TOOL),
        `the connected MCP server "echo" lists tools ${JSON.stringify(echo.tools)}, not "${ECHO_TOOL}"`,
      );
      await recorder.close();
      return ['mcpStatus'];
    },
  },
  {
    name: 'fork',
    evidences: 'fork',
    requires: ['fork'],
    async run({ server, open }) {
      server.enqueue(reply().text('Noted the fork word.'));
      const first = await open();
      const one = await first.turn(FORK_FIRST);
      check(one.outcome.status === 'completed', `first turn ${JSON.stringify(one.outcome)}`);
      const original = first.session.nativeSessionId;
      check(original, 'no nativeSessionId after the first turn');
      await first.close();
      const before = server.requests.length;
      server.enqueue(reply().text(`The fork word was ${FORK_WORD}.`));
      let fork: SessionRecorder;
      let terminal: TurnCompletedEvent;
      try {
        fork = await open({ resume: { nativeSessionId: original, fork: true } });
        terminal = await fork.turn(FORK_QUESTION);
      } catch (thrown) {
        // A harness without a fork refuses it (unsupported_capability); one that cannot find the
        // conversation to copy says resume_failed. Never a silent fresh start.
        if (ReinsError.isInstance(thrown) && ['unsupported_capability', 'resume_failed'].includes(thrown.code)) {
          limitation(`fork: ${thrown.message}`);
        }
        throw thrown;
      }
      check(terminal.outcome.status === 'completed', `the fork's first turn ${JSON.stringify(terminal.outcome)}`);
      const forked = fork.session.nativeSessionId;
      check(forked, 'the fork has no nativeSessionId after its first turn');
      check(forked !== original, `the fork kept the original native id ${original}: a resume, not a fork`);
      const request = server.requests.slice(before).find((r) => r.scripted);
      check(request, "the model server saw no request for the fork's first turn");
      const body = JSON.stringify(request.body);
      check(body.includes(FORK_QUESTION), "the fork's first request does not hold the fork's own question");
      check(body.includes(FORK_FIRST), "the fork's first request does not hold the conversation it was forked from");
      await fork.close();
      return ['fork'];
    },
  },
  {
    name: 'history',
    evidences: 'history',
    requires: ['sessionList', 'history'],
    async run({ server, open, setup, workdir }) {
      server.enqueue(reply().text(HISTORY_REPLY));
      const recorder = await open();
      const terminal = await recorder.turn(HISTORY_TEXT);
      check(terminal.outcome.status === 'completed', `outcome ${JSON.stringify(terminal.outcome)}`);
      const nativeSessionId = recorder.session.nativeSessionId;
      check(nativeSessionId, 'no nativeSessionId after the turn');
      // Closed first: what a later process (a fresh daemon, a UI) finds is what the harness stored.
      await recorder.close();
      const { harness } = setup;
      if (!harness.listSessions || !harness.history)
        fail('the adapter declares history but has no listSessions/history');
      const [list, replay] = [harness.listSessions.bind(harness), harness.history.bind(harness)];
      const listed = await honestly(() => list({ cwd: workdir }), 'listSessions()');
      check(
        listed.some((summary) => summary.nativeSessionId === nativeSessionId),
        `listSessions({ cwd }) does not list ${nativeSessionId} (it lists ${listed.length}: ${listed
          .slice(0, 5)
          .map((summary) => summary.nativeSessionId)
          .join(', ')})`,
      );
      const items = await honestly(() => replay(nativeSessionId, { cwd: workdir }), 'history()');
      const users = items.flatMap((item) =>
        item.kind === 'user_message' && item.text.includes(HISTORY_TEXT) ? [item] : [],
      );
      check(
        users.length > 0,
        `history() holds no user message with the turn's text (kinds: ${items.map((item) => item.kind).join(', ') || 'none'})`,
      );
      // `origin` absent means `user` (docs/architecture/contract.md, items).
      check(
        users.every((item) => (item.origin ?? 'user') === 'user'),
        `the user's own message came back with origin ${users.map((item) => item.origin).join(', ')}`,
      );
      check(
        items.some((item) => item.kind === 'agent_message' && item.text.includes(HISTORY_REPLY)),
        "history() holds no agent message with the turn's reply",
      );
      return ['sessionList', 'history'];
    },
  },
];
