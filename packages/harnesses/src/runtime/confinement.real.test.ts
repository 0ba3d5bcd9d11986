// Real Pi, Gemini CLI and OpenCode (pinned), hermetic, under posture `workspace` (Reins' own bubblewrap
// confinement, docs/architecture/contract.md "Postures"): the scripted model has each write one file in
// the cwd and one in $HOME through its shell tool; the first lands, the second is refused by the
// read-only file system, and the turn goes on to completion with the refusal reported. The three run
// side by side on one model server, each routed by a marker in its prompt. HOME is not writable
// except the state folders each harness declares, so a missing declaration fails here too.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness, ReinsEvent, ToolCallItem } from '@reins/core';
import {
  assertHermetic,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  type RecordedRequest,
  reply,
  SessionRecorder,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acpRig } from '../../test/support/acp-real.js';
import { createPiHarness } from '../pi/adapter.js';

/** A turn took up to a minute on a loaded 2-CPU machine. */
const TURN_MS = 120_000;
const REFUSAL = /Read-only file system/;

let server: ModelServer;
beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});

const bodyOf = (request: RecordedRequest) => JSON.stringify(request.body ?? '');

/** Scripts one harness's turn: write inside, write to `outside`, then a closing text; routed by `marker`. */
function script(marker: string, outside: string): void {
  const inside = `echo inside-${marker} > inside.txt`;
  const out = `echo outside-${marker} > ${outside}`;
  const has = (request: RecordedRequest, text: string) => bodyOf(request).includes(text);
  server.when((r) => has(r, marker) && !has(r, inside), reply().shell(inside), { persistent: true });
  server.when((r) => has(r, inside) && !has(r, out), reply().shell(out), { persistent: true });
  server.when((r) => has(r, out), reply().text(`Done ${marker}.`), { persistent: true });
}

/** What the harness told its model after the refused command (the tool result it sent back). */
const refusalSentToModel = (marker: string, outside: string) =>
  server.requests.some(
    (request) =>
      bodyOf(request).includes(marker) && bodyOf(request).includes(`> ${outside}`) && REFUSAL.test(bodyOf(request)),
  );

async function confinedTurn(options: {
  marker: string;
  harness: Harness;
  workspace: string;
  home: string;
}): Promise<{ refused: ToolCallItem; recorder: SessionRecorder }> {
  const { marker, workspace } = options;
  const outside = join(options.home, `outside-${marker}.txt`);
  script(marker, outside);
  const session = await options.harness.createSession({ cwd: workspace, posture: 'workspace' });
  const recorder = new SessionRecorder(session, TURN_MS);
  const sent = await session.send(`${marker}: write one file here and one in your home folder.`);
  const terminal = await recorder.terminalOf(sent);
  expect(terminal.outcome).toEqual({ status: 'completed' });
  expect(readFileSync(join(workspace, 'inside.txt'), 'utf8')).toBe(`inside-${marker}\n`);
  expect(existsSync(outside)).toBe(false);
  const tools = recorder
    .turnEvents(sent.turnId)
    .flatMap((event: ReinsEvent) =>
      event.type === 'item.completed' && event.item.kind === 'tool_call' ? [event.item] : [],
    );
  // The refused command is a tool call of the turn, and the harness's own message reached its model.
  const refused = tools.find((tool) => JSON.stringify(tool.input ?? '').includes(outside));
  expect(refused, `tool calls: ${JSON.stringify(tools.map((tool) => tool.tool))}`).toBeDefined();
  expect(refusalSentToModel(marker, outside)).toBe(true);
  return { refused: refused as ToolCallItem, recorder };
}

describe('workspace posture under Reins confinement (bubblewrap)', () => {
  it.concurrent('Pi: a shell write in the cwd lands, one in $HOME is a failed tool call', async () => {
    const temp: TempHome = await makeTempHome('reins-pi-confined-');
    const workspace = join(temp.dir, 'work');
    mkdirSync(workspace);
    try {
      const launch = await harnessLaunch('pi', { modelServerUrl: server.url, tempHome: temp });
      const harness = createPiHarness({
        binaryPath: launch.binary.args[0] as string,
        baseEnv: launch.env,
        requestTimeoutMs: 30_000,
      });
      const { refused, recorder } = await confinedTurn({ marker: 'PI-WS', harness, workspace, home: temp.home });
      expect(refused.status).toBe('failed');
      expect(refused.output?.text ?? '').toMatch(REFUSAL);
      await recorder.close();
    } finally {
      await temp.cleanup();
    }
  });

  // Both agents call a command that exits non-zero a completed tool call (their own status); OpenCode
  // shows the shell's message and exit code, Gemini CLI 0.61.0 sends no shell output to the client at all.
  const agents = [
    {
      id: 'opencode',
      shown: (tool: ToolCallItem) => {
        expect(tool.output?.text ?? '').toMatch(REFUSAL);
        expect(tool.exitCode).toBe(1);
      },
    },
    { id: 'gemini', shown: (tool: ToolCallItem) => expect(tool.output?.text).toBeUndefined() },
  ] as const;
  for (const agent of agents) {
    it.concurrent(`${agent.id}: a shell write in the cwd lands, one in $HOME is refused and reported`, async () => {
      const rig = await acpRig(agent.id, server, { scenario: 'workspace-confined' });
      try {
        const marker = `${agent.id.toUpperCase()}-WS`;
        const { refused, recorder } = await confinedTurn({
          marker,
          harness: rig.harness(),
          workspace: rig.workspace,
          home: rig.temp.home,
        });
        agent.shown(refused);
        await recorder.close();
      } finally {
        await rig.cleanup();
      }
    });
  }
});
