// `reins chat`: an interactive session in a terminal. Lines are turns (queued while one runs);
// slash commands steer, interrupt, switch model or effort. Ctrl-C interrupts the running turn, not
// the program; at the prompt, a second Ctrl-C (or /quit) leaves.
import { createInterface } from 'node:readline';
import { EFFORT_LEVELS, type Effort, ReinsError, type ReinsEvent, type Session, type Usage } from '@reins/core';
import { createHarness } from '@reins/harnesses';
import { type CliIo, EXIT, UsageError, wantsColor } from '../io.js';
import { HumanRenderer, tokenCounts } from '../render/human.js';
import { makeStyle } from '../render/style.js';
import { parseSessionArgs, sessionOptions, usageFromReinsError } from '../session-options.js';
import { closeOnTermination } from '../signals.js';

export const CHAT_HELP = `Usage: reins chat -H <harness> [options]

An interactive session. Type a message and press Enter; messages typed while a turn runs are queued.

Commands inside the chat:
  /model <id>       switch model (live where the harness allows, else from the next turn)
  /effort <level>   switch reasoning effort (${EFFORT_LEVELS.join(' | ')})
  /steer <text>     add to the running turn (queued instead where the harness cannot steer; it says which)
  /interrupt        stop the running turn (also Ctrl-C)
  /status           session id, model, usage so far
  /diff [turn]      what the last turn (or that turn) changed on disk, from its checkpoint
  /undo             put the files back as they were before the last turn (and the conversation, where the
                    harness can); refused when you changed those files since
  /compact          the harness summarises the conversation now (Claude Code, Codex, Pi), a turn of its own
  /quit             end the session (also Ctrl-D)

Options: the same as \`reins run\` (-H, -C, -m, --effort, --resume, --output-schema, --posture);
--output-schema validates the reply of every message you send.

Exit codes: 0 ended (/quit, Ctrl-D, Ctrl-C twice at the prompt), 2 bad usage; SIGTERM or SIGHUP closes the
session (every harness process stops) and exits 143 or 129.

Example:
  reins chat -H codex -m gpt-5-codex`;

export async function chatCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseSessionArgs(argv);
  if (values.help) {
    io.stdout.write(`${CHAT_HELP}\n`);
    return EXIT.completed;
  }
  if (positionals.length > 0) throw new UsageError('chat takes no prompt argument; type it at the prompt.');
  if (values.json) throw new UsageError('--json is for `reins run`; chat is for people.');
  const options = await sessionOptions(values, io);
  let session: Session;
  try {
    session = await (await createHarness(options.harness)).createSession(options.spec);
  } catch (error) {
    throw usageFromReinsError(error, options.harness) ?? error;
  }

  const style = makeStyle(wantsColor(io));
  const say = (text: string) => io.stdout.write(`${style.dim(text)}\n`);
  const renderer = new HumanRenderer((text) => io.stdout.write(text), {
    color: wantsColor(io),
    live: Boolean(io.stdout.isTTY),
    harness: options.harness,
  });
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: Boolean(io.stdin.isTTY) });
  rl.setPrompt('› ');

  // --output-schema holds for every message that becomes a turn (a steer joins a turn that has one).
  const turnOptions = options.outputSchema ? { outputSchema: options.outputSchema } : {};
  let running = false;
  let model = options.spec.model;
  let total: Usage | undefined;
  let idleInterrupts = 0;
  /** Turns with a checkpoint, oldest first (docs/architecture/contract.md, "Checkpoints"). */
  const checkpointed: string[] = [];

  const consumed = (async () => {
    for await (const event of session.events as AsyncIterable<ReinsEvent>) {
      renderer.event(event);
      if (event.type === 'turn.started') running = true;
      if (event.type === 'session.updated' && event.model) model = event.model;
      if (event.type === 'usage.updated' && event.total) total = { total: event.total };
      if (event.type === 'checkpoint') {
        checkpointed.push(event.turnId);
        const count = event.changes.length;
        if (count > 0) say(`${count} file${count === 1 ? '' : 's'} changed (/diff to see, /undo to put back)`);
      }
      if (event.type === 'turn.completed') {
        running = false;
        rl.prompt();
      }
    }
  })();

  /** Says something and keeps the chat going. */
  const note = (text: string): true => {
    say(text);
    return true;
  };
  const act = async (line: string): Promise<boolean> => {
    const [command, ...words] = line.trim().split(/\s+/);
    const arg = words.join(' ');
    switch (command) {
      case '/quit':
      case '/exit':
        return false;
      case '/interrupt':
        if (running) await session.interrupt();
        else say('nothing is running');
        return true;
      case '/model': {
        if (!arg) return note('usage: /model <id>');
        const change = await session.setModel(arg);
        model = arg;
        say(`model → ${arg} (${change.applied.replace('_', ' ')})`);
        return true;
      }
      case '/effort': {
        if (!(EFFORT_LEVELS as readonly string[]).includes(arg))
          return note(`usage: /effort ${EFFORT_LEVELS.join('|')}`);
        const change = await session.setEffort(arg as Effort);
        say(`effort → ${arg} (${change.applied.replace('_', ' ')})`);
        return true;
      }
      case '/steer': {
        if (!arg) return note('usage: /steer <text>');
        const result = await session.send({ text: arg }, { mode: 'steer' });
        say(
          result.delivery === 'steered'
            ? 'steered into the running turn'
            : result.delivery === 'queued'
              ? 'the harness cannot steer: queued, it runs after the current turn'
              : 'nothing was running: it started a new turn',
        );
        return true;
      }
      case '/status': {
        const tokens = total?.total;
        say(
          [
            `session ${session.id}`,
            `native ${session.nativeSessionId ?? '(not yet known)'}`,
            `model ${model ?? '(harness default)'}`,
            tokenCounts(tokens) ?? 'usage not reported yet',
            running ? 'a turn is running' : 'idle',
          ].join(' · '),
        );
        return true;
      }
      case '/diff': {
        const turnId = arg || checkpointed.at(-1);
        if (!session.diff || !turnId) return note('no checkpoint yet: the cwd must be in a git work tree');
        const diff = await session.diff(turnId);
        if (diff.changes.length === 0) return note(`${turnId} changed no files`);
        for (const change of diff.changes) {
          say(`${change.kind} ${change.previousPath ? `${change.previousPath} → ` : ''}${change.path}`);
          if (change.diff) io.stdout.write(change.diff.endsWith('\n') ? change.diff : `${change.diff}\n`);
        }
        return true;
      }
      case '/undo': {
        const turnId = checkpointed.at(-1);
        if (!session.revert || !turnId) return note('nothing to undo: no turn with a checkpoint');
        const result = await session.revert(turnId);
        checkpointed.pop();
        const files = result.files.length > 0 ? result.files.join(', ') : 'no files';
        say(`undid ${turnId}: ${files} restored; conversation ${result.conversation}`);
        return true;
      }
      case '/compact': {
        if (!session.compact) return note(`${session.harness} cannot compact on request (it compacts by itself)`);
        await session.compact();
        return true;
      }
      default:
        if (line.startsWith('/')) {
          say(`unknown command ${command}; try /model /effort /steer /interrupt /status /diff /undo /compact /quit`);
          return true;
        }
        if (line.trim() === '') return true;
        {
          const result = await session.send({ text: line }, turnOptions);
          if (result.delivery === 'queued') say('queued: it runs after the current turn');
        }
        return true;
    }
  };

  const onInterrupt = () => {
    if (running) {
      idleInterrupts = 0;
      say('interrupting…');
      session.interrupt().catch(() => {});
      return;
    }
    idleInterrupts++;
    if (idleInterrupts >= 2) rl.close();
    else {
      say('(Ctrl-C again or /quit to leave)');
      rl.prompt();
    }
  };
  // On a terminal readline reads Ctrl-C itself; with stdin piped the process gets SIGINT, which
  // without a listener would end Node at once and leave the harness running.
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  const termination = closeOnTermination(session, () => rl.close());

  say(`${options.harness} session ${session.id} · /quit to leave`);
  rl.prompt();
  for await (const line of rl) {
    idleInterrupts = 0;
    try {
      if (!(await act(line))) break;
    } catch (error) {
      say(ReinsError.isInstance(error) ? `${error.code}: ${error.message}` : String(error));
    }
    if (!running) rl.prompt();
  }
  rl.close();
  await session.close();
  await consumed;
  process.off('SIGINT', onInterrupt);
  termination.dispose();
  return termination.exitCode ?? EXIT.completed;
}
