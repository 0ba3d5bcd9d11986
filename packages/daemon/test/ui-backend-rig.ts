// The shared rig of the UI-backend real tests (ui-backend.real.test.ts, ui-backend-fork.real.test.ts):
// per harness one scripted model server, one hermetic harness home (with an AGENTS.md in the
// workdir), one in-process daemon with daemon-level harness options, and, on first use, one
// `reins daemon` process (the built CLI) with a REINS_HOME of its own and the environment a user's
// shell would have (the same harness home, REINS_<ID>_BIN), so the two daemons share only what the
// harness itself keeps on disk. Plus what the scripted model server was shown.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, DaemonInfoSchema, type ReinsClient, type RemoteSession } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import {
  harnessBinary,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  reply,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningCli, startCli } from '../../cli/test/cli.js';
import { type Daemon, startDaemon } from '../src/index.js';
import type { EventReader } from './helpers.js';
import { silent } from './helpers.js';

export const TURN_MS = 90_000;

export interface RigKnobs {
  id: 'codex' | 'claude-code' | 'claude-agent-acp';
  /** Claude Code asks the model on its own (titles, probes): those get the server's default. */
  strict: boolean;
  /** A model the harness accepts for a live switch (the server answers any). */
  alternateModel: string;
}

/** Codex and Claude Code, and claude-agent-acp 0.23.1 as the ACP agent (it advertises fork, list and load). */
export const HARNESS_RIGS: RigKnobs[] = [
  { id: 'codex', strict: true, alternateModel: 'fake-model-2' },
  { id: 'claude-code', strict: false, alternateModel: 'claude-sonnet-4-5-20250929' },
  { id: 'claude-agent-acp', strict: false, alternateModel: 'fake-model-2' },
];

/** One harness's shared rig: the model server, the harness home, an in-process daemon, a daemon process. */
export interface Rig {
  knobs: RigKnobs;
  server: ModelServer;
  tempHome: TempHome;
  workdir: string;
  /** The environment a user's shell would have: the hermetic harness home plus REINS_<ID>_BIN. */
  env: Record<string, string>;
  first: { daemon: Daemon; client: ReinsClient };
  /** A `reins daemon` process of its own REINS_HOME, started on first use. */
  fresh(): Promise<{ cli: RunningCli; client: ReinsClient; home: string }>;
  dispose(): Promise<void>;
}

export async function rigFor(knobs: RigKnobs): Promise<Rig> {
  const server = await startModelServer({ strict: knobs.strict });
  const tempHome = await makeTempHome(`reins-ui-${knobs.id}-`);
  const binary = harnessBinary(knobs.id);
  const launch = await harnessLaunch(knobs.id, {
    modelServerUrl: server.url,
    tempHome,
    binary,
    extraModels: [knobs.alternateModel],
  });
  const workdir = join(tempHome.dir, 'work');
  await mkdir(workdir, { recursive: true });
  await writeFile(join(workdir, 'AGENTS.md'), 'Always answer briefly.\n');
  const variable = `REINS_${knobs.id.toUpperCase().replace(/-/g, '_')}_BIN`;
  // A Node agent (claude-agent-acp) is its script, run with `node`; a user points REINS_<ID>_BIN at the script.
  const env = { ...launch.env, [variable]: binary.args[0] ?? binary.command };
  const daemon = await startDaemon({
    home: join(tempHome.dir, 'reins-first'),
    harnesses: [knobs.id],
    logger: silent,
    harnessOptions: {
      [knobs.id]: {
        binaryPath: binary.command,
        ...(binary.args.length > 0 ? { binaryArgs: binary.args } : {}),
        baseEnv: launch.env,
        requestTimeoutMs: 45_000,
      },
    },
  });
  const clients: ReinsClient[] = [];
  const open = async (url: string, token: string) => {
    const reins = await connect({ url, token, WebSocket, requestTimeoutMs: TURN_MS });
    clients.push(reins);
    return reins;
  };
  const first = { daemon, client: await open(daemon.url, daemon.token) };
  let started: Promise<{ cli: RunningCli; client: ReinsClient; home: string }> | undefined;
  let cli: RunningCli | undefined;
  return {
    knobs,
    server,
    tempHome,
    workdir,
    env,
    first,
    fresh() {
      started ??= (async () => {
        const home = join(tempHome.dir, 'reins-fresh');
        cli = startCli(['daemon', '--log-level', 'warn'], { env: { ...env, REINS_HOME: home } });
        await cli.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
        const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')));
        return { cli, client: await open(info.url, info.token), home };
      })();
      return started;
    },
    async dispose() {
      for (const reins of clients.splice(0)) reins.close();
      await daemon.close();
      if (cli && cli.child.exitCode === null && cli.child.signalCode === null) {
        cli.child.kill('SIGTERM');
        const ended = await cli.done;
        expect(ended.code, ended.stderr).toBe(0);
      }
      await server.close();
      await tempHome.cleanup();
    },
  };
}

export const turnEnd = (turnId: string) => (event: ReinsEvent) =>
  event.type === 'turn.completed' && event.turnId === turnId;

/** Sends one prompt (the model answers `answer`) and waits for the turn to complete. */
export async function turn(rig: Rig, session: RemoteSession, events: EventReader, prompt: string, answer: string) {
  rig.server.when(prompt, reply().text(answer));
  const sent = await session.send(prompt);
  const done = await events.waitFor(turnEnd(sent.turnId), `the turn "${prompt}"`, TURN_MS);
  expect(done).toMatchObject({ outcome: { status: 'completed' } });
}

/** The body of the (last) scripted request that carried `prompt` as its trailing user text. */
export function requestBody(rig: Rig, prompt: string): unknown {
  const found = rig.server.requests.filter((request) => request.scripted && request.userText.includes(prompt));
  expect(found.length, `a scripted request for "${prompt}"`).toBeGreaterThan(0);
  return found.at(-1)?.body;
}

/** The request's conversation as text (what the model was shown). */
export const shown = (rig: Rig, prompt: string) => JSON.stringify(requestBody(rig, prompt));

/** Each user-role text part of a request: OpenAI Responses `input` (Codex) or Anthropic `messages`. */
export function userRoleTexts(body: unknown): string[] {
  const record = (body ?? {}) as { input?: unknown; messages?: unknown };
  const messages = (
    Array.isArray(record.input) ? record.input : Array.isArray(record.messages) ? record.messages : []
  ) as {
    role?: string;
    content?: unknown;
  }[];
  return messages
    .filter((message) => message.role === 'user')
    .flatMap((message) =>
      typeof message.content === 'string'
        ? [message.content]
        : Array.isArray(message.content)
          ? message.content.flatMap((part: { type?: string; text?: unknown }) =>
              (part.type === 'input_text' || part.type === 'text') && typeof part.text === 'string' ? [part.text] : [],
            )
          : [],
    );
}
