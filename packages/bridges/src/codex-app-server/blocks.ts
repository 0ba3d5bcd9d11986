// Blocks mode (`reins bridge codex-app-server --mode blocks -H <harness>`): one thread, one harness
// process for every turn, NDJSON blocks in on stdin (blocks-input.ts) and only App Server v2
// notifications out on stdout, each turn's turn/completed holding all of its items. Every `user`
// block is one turn with its userMessage item and exactly one turn/completed, also when it never
// reaches the harness (a model it refuses, an attachment that is missing). `--resume <thread>`
// continues a conversation natively. stdin EOF lets the turns already sent finish, then closes the
// harness; a signal closes it at once.

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { type Effort, type Harness, ReinsError, type SessionSpec, type TurnInput } from '@reins/core';
import { LineSplitter } from '@reins/harnesses';
import { DEFAULT_MAX_LINE_BYTES } from '../framing.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, runUntilStopped, type StopReason, withDeadline } from '../lifecycle.js';
import {
  type Attachment,
  Attachments,
  BlockError,
  blockEffortOf,
  blockInputOf,
  parseBlock,
  type UserBlock,
} from './blocks-input.js';
import { type ThreadFacts, threadObject } from './catalog.js';
import { createThreadState } from './state.js';
import { BridgeThread } from './thread.js';
import { refusedTurn } from './turns.js';
import type { BridgeNotification } from './wire.js';

export interface BlocksBridgeOptions {
  harness: Harness;
  stdin: Readable;
  stdout: Writable;
  cwd: string;
  defaults?: { model?: string; effort?: Effort };
  /** The thread (native session id) to continue. */
  resume?: string;
  requestTimeoutMs?: number;
  shutdownGraceMs?: number;
  maxLineBytes?: number;
  log?: (message: string) => void;
}

function errorInfoOf(error: unknown) {
  if (error instanceof BlockError) return { code: 'invalid_input' as const, message: error.message };
  return ReinsError.from(error, 'protocol_error', { operation: 'blocks' }).toInfo();
}

/** Runs blocks mode until stdin ends (after the turns sent have finished) or a signal arrives. */
export async function serveBlocksStdio(options: BlocksBridgeOptions): Promise<StopReason> {
  const log = options.log ?? (() => {});
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const harness = options.harness;
  let writable = true;
  options.stdout.on('error', () => {
    writable = false;
  });
  const notify = (method: string, params: unknown) => {
    if (writable) options.stdout.write(`${JSON.stringify({ method, params, emittedAtMs: Date.now() })}\n`);
  };
  const spec: SessionSpec = {
    cwd: options.cwd,
    posture: 'bypass',
    ...(options.defaults?.model ? { model: options.defaults.model } : {}),
    ...(options.defaults?.effort ? { effort: options.defaults.effort } : {}),
    ...(options.resume ? { resume: { nativeSessionId: options.resume } } : {}),
  };
  const session = await withDeadline(
    harness.createSession(spec),
    requestTimeoutMs,
    'createSession',
    (late) => void late.close(),
  );
  const threadId = options.resume ?? session.nativeSessionId ?? `reins-${randomUUID()}`;
  const state = createThreadState({
    threadId,
    cwd: options.cwd,
    itemsView: 'full',
    fresh: options.resume === undefined,
    ...(options.defaults?.model ? { model: options.defaults.model } : {}),
    ...(options.defaults?.effort ? { effort: options.defaults.effort } : {}),
  });
  // Every user block is one turn that ends exactly once (sent, or refused): EOF waits for them all.
  let outstanding = 0;
  let drained: (() => void) | undefined;
  const settle = () => {
    outstanding = Math.max(0, outstanding - 1);
    if (outstanding === 0) drained?.();
  };
  let sessionGone: () => void = () => {};
  const sessionEnded = new Promise<void>((resolve) => {
    sessionGone = resolve;
  });
  const thread = new BridgeThread(
    threadId,
    session,
    state,
    { cwd: options.cwd, posture: 'bypass' },
    {
      out: { notify },
      requestTimeoutMs,
      permissionTimeoutMs: requestTimeoutMs,
      optedOut: new Set(),
      log,
      turnEnded: () => settle(),
      ended: () => sessionGone(),
    },
  );
  const facts: ThreadFacts = {
    id: threadId,
    cwd: options.cwd,
    provider: harness.id,
    ...(state.model ? { model: state.model } : {}),
    createdAtMs: Date.now(),
    updatedAtMs: Date.now(),
    recency: true,
    status: { type: 'idle' },
    source: 'vscode',
  };
  notify('thread/started', { thread: threadObject(facts) });

  const emit = (notifications: BridgeNotification[]) => thread.emit(notifications);
  const attachments = new Attachments();
  const scratch = await mkdtemp(join(tmpdir(), 'reins-blocks-'));
  let fileCount = 0;
  const writeAttachment = async (attachment: Attachment) => {
    const path = join(scratch, `${++fileCount}-${basename(attachment.name ?? attachment.id).replace(/[^\w.-]/g, '_')}`);
    await writeFile(path, attachment.bytes, { mode: 0o600 });
    return path;
  };

  async function userTurn(block: UserBlock): Promise<void> {
    let input: TurnInput = { text: block.text ?? '' };
    outstanding++;
    try {
      input = await blockInputOf(block, attachments, writeAttachment);
      if (block.provider && block.provider !== harness.id) {
        throw new ReinsError(
          'unsupported_capability',
          `provider "${block.provider}": the ${harness.id} harness behind the bridge chooses its own provider.`,
          { harness: harness.id, operation: 'blocks' },
        );
      }
      const effort = blockEffortOf(block);
      if (block.model && block.model !== state.model) {
        await withDeadline(session.setModel(block.model), requestTimeoutMs, 'setModel');
        state.model = block.model;
      }
      if (effort && effort !== state.effort) {
        await withDeadline(session.setEffort(effort), requestTimeoutMs, 'setEffort');
        state.effort = effort;
      }
      await withDeadline(session.send(input, { mode: 'queue' }), requestTimeoutMs, 'send');
    } catch (error) {
      log(`a user block did not become a turn: ${String(error)}`);
      emit(refusedTurn(state, input, errorInfoOf(error), Date.now()));
    }
  }

  let chain = Promise.resolve();
  const handle = (line: string) => {
    if (line.trim() === '') return;
    chain = chain.then(async () => {
      try {
        const block = parseBlock(line);
        if (block.type === 'user') await userTurn(block);
        else if (block.type === 'interrupt') await thread.interruptNow();
        else attachments.add(block);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log(`block refused: ${message}`);
        emit([{ method: 'warning', params: { threadId, message } }]);
      }
    });
  };
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const reader = new LineSplitter(handle, max, (bytes) => {
    const message = `A block of ${bytes} bytes is over the ${max} this bridge takes; send large attachments in pieces.`;
    log(message);
    emit([{ method: 'warning', params: { threadId, message } }]);
  });
  options.stdin.on('data', (chunk: Buffer | string) =>
    reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
  );
  // stdin's end is the sender done: the turns it sent still run to their end.
  const finished = new Promise<void>((resolve) => {
    const done = () => {
      reader.flush();
      void chain.then(() => {
        if (outstanding === 0) resolve();
        else drained = resolve;
      });
    };
    options.stdin.on('end', done);
    options.stdin.on('close', done);
    options.stdin.on('error', done);
  });
  try {
    return await runUntilStopped(
      Promise.race([finished, sessionEnded]),
      () => session.close().catch(() => {}),
      options.shutdownGraceMs ?? 2_500,
      (stop) => log(`shutting down (${stop})`),
    );
  } finally {
    options.stdin.pause();
    await rm(scratch, { recursive: true, force: true });
  }
}
