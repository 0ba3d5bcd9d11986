// `reins sessions`: the daemon's sessions from the command line: list them (--json for programs), replay one
// as `reins run` prints it (`show ID`), or follow a live one (`attach ID`) until it closes or Ctrl-C.
import { createRequire } from 'node:module';
import { connect, type ReinsClient, type WebSocketConstructor } from '@reins/client';
import { ReinsError, type ReinsEvent } from '@reins/core';
import { readDaemonFile } from '@reins/daemon';
import { reinsHome } from '@reins/harnesses';
import { parseFlags } from '../args.js';
import { type CliIo, EXIT, UsageError, wantsColor } from '../io.js';
import { HumanRenderer } from '../render/human.js';
import { makeStyle } from '../render/style.js';
import { REINS_VERSION } from '../version.js';

export const SESSIONS_HELP = `Usage: reins sessions [--json]
       reins sessions show <id> [--json]
       reins sessions attach <id> [--json]

The sessions of the Reins daemon of this REINS_HOME (\`reins daemon\` or \`reins console\` starts one):
  (none)        list them: id, harness, status, last event, title, folder
  show <id>     replay the session's events as \`reins run\` prints them, then exit
  attach <id>   replay them, then follow the session live until it closes (Ctrl-C detaches; it runs on)

Options:
      --json    NDJSON events (show, attach) or the listing as a JSON array
  -h, --help    this help`;

/** Node 20 has no global WebSocket: take the ws package the daemon itself depends on. */
function webSocketClass(): WebSocketConstructor {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return global;
  const fromDaemon = createRequire(import.meta.resolve('@reins/daemon'));
  return (fromDaemon('ws') as { WebSocket: WebSocketConstructor }).WebSocket;
}

/** `nativeFrames`: the events come with their native frames (only NDJSON prints them). */
async function connectToDaemon(io: CliIo, nativeFrames: boolean): Promise<ReinsClient> {
  const home = reinsHome(io.env);
  const info = await readDaemonFile(home);
  if (!info) {
    throw new ReinsError(
      'invalid_input',
      `No Reins daemon runs for ${home} (no daemon.json): start one with \`reins daemon\` or \`reins console\`.`,
    );
  }
  return connect({
    url: info.url,
    token: info.token,
    WebSocket: webSocketClass(),
    client: { name: 'reins sessions', version: REINS_VERSION },
    nativeFrames,
  });
}

export async function sessionsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    io.stdout.write(`${SESSIONS_HELP}\n`);
    return EXIT.completed;
  }
  const [action = 'list', id, ...rest] = positionals;
  if (!['list', 'show', 'attach'].includes(action)) {
    throw new UsageError(`Unknown sessions action "${action}".`, 'Use `reins sessions`, `show <id>` or `attach <id>`.');
  }
  if (action !== 'list' && id === undefined) throw new UsageError(`\`reins sessions ${action}\` needs a session id.`);
  if (rest.length > 0 || (action === 'list' && id !== undefined)) {
    throw new UsageError(`Unexpected arguments: ${[...(action === 'list' ? [id] : []), ...rest].join(' ')}.`);
  }
  const client = await connectToDaemon(io, values.json === true);
  try {
    if (action === 'list') return await list(client, io, values.json ?? false);
    return await replay(client, id as string, io, { json: values.json ?? false, follow: action === 'attach' });
  } finally {
    client.close();
  }
}

async function list(client: ReinsClient, io: CliIo, json: boolean): Promise<number> {
  const sessions = (await client.listSessions()).sort((a, b) => b.updatedAt - a.updatedAt);
  if (json) {
    io.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
    return EXIT.completed;
  }
  if (sessions.length === 0) {
    io.stdout.write('The daemon holds no sessions.\n');
    return EXIT.completed;
  }
  const style = makeStyle(wantsColor(io));
  const rows = sessions.map((session) => [
    session.sessionId,
    session.harness,
    session.status,
    new Date(session.updatedAt).toISOString().replace('T', ' ').slice(0, 19),
    session.title ?? '',
    session.cwd,
  ]);
  const headers = ['ID', 'HARNESS', 'STATUS', 'UPDATED (UTC)', 'TITLE', 'FOLDER'];
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)) + 2);
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i < cells.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell)).join('');
  io.stdout.write(`${style.dim(line(headers))}\n${rows.map(line).join('\n')}\n`);
  return EXIT.completed;
}

/** The session's events from its first, as `run` prints them; `follow` goes on with the live ones. */
async function replay(
  client: ReinsClient,
  sessionId: string,
  io: CliIo,
  options: { json: boolean; follow: boolean },
): Promise<number> {
  const session = await client.attach(sessionId, { afterSeq: 0 });
  const style = makeStyle(wantsColor(io));
  const write = (text: string) => io.stdout.write(text);
  const renderer = options.json
    ? undefined
    : new HumanRenderer(write, { color: wantsColor(io), live: false, harness: session.harness });
  const replayedUpTo = session.backlogSeq;
  const onSigint = () => void session.detach();
  process.on('SIGINT', onSigint);
  try {
    if (!options.follow && replayedUpTo === 0) return EXIT.completed;
    for await (const event of session.events as AsyncIterable<ReinsEvent>) {
      if (!renderer) write(`${JSON.stringify(event)}\n`);
      else if (event.type === 'turn.started') write(`${style.bold(`▶ ${event.input.text ?? ''}`)}\n`);
      else renderer.event(event);
      if (!options.follow && event.seq >= replayedUpTo) break;
      if (event.type === 'session.closed') break;
    }
  } finally {
    process.off('SIGINT', onSigint);
    await session.detach().catch(() => {});
  }
  return EXIT.completed;
}
