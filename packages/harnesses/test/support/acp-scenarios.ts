// The behaviours every real ACP agent is checked on (text, shell, file write, cancel, resume in a
// new process, model switch, provider error), written once; each agent's *.real.test.ts calls them
// with its own differences. Every scenario ends by closing its recorder, which checks the stream
// invariants (seq, one terminal per turn, items, no repeated text).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReinsEvent, ToolCallItem, TurnCompletedEvent } from '@reins/core';
import { type HarnessPin, reply } from '@reins/testkit';
import { expect } from 'vitest';
import { type AcpRig, agentText, of, type RealAcpId } from './acp-real.js';

/**
 * The pin each agent's row of the ACP presets' table runs the scenarios on
 * (src/acp/presets/presets.real.test.ts): claude-agent-acp's previous pin, since its current one runs the whole
 * conformance suite and the v2 test.
 */
export const TABLE_PINS: Record<RealAcpId, HarnessPin> = {
  copilot: 'current',
  'claude-agent-acp': 'previous',
  gemini: 'current',
  'qwen-code': 'current',
  opencode: 'current',
  'codex-acp': 'current',
};

/**
 * The conformance behaviours these scenarios check, and more strictly (exact text, the tool's own name and
 * input, the next turn's own answer after a cancel). The ACP conformance lanes leave them to the table on
 * the table's pin of each agent rather than start every agent twice for the same proof.
 */
export const SCENARIO_BEHAVIOURS = [
  'text turn',
  'tool call lifecycle',
  'interrupt',
  'resume in a new process',
  'model switch',
  'provider error surfaced',
] as const;

const isStatus = (event: ReinsEvent) => event.type === 'session.status';

export async function textTurn(rig: AcpRig): Promise<ReinsEvent[]> {
  rig.server.enqueue(
    reply()
      .reasoning('Thinking about a greeting.')
      .text('Hello from the fake model.')
      .usage({ input: 100, output: 20 }),
  );
  const { session, recorder } = await rig.open();
  const started = await recorder.collect(isStatus, 'the first session.status');
  expect(of(started, 'session.started')[0]).toMatchObject({ cwd: rig.workspace, harnessVersion: expect.any(String) });
  expect(of(started, 'session.updated')[0]?.nativeSessionId).toBe(session.nativeSessionId);
  const sent = await session.send('Say hello please.');
  expect(sent).toMatchObject({ delivery: 'started' });
  const completed = await recorder.terminalOf(sent);
  const events = recorder.turnEvents(sent.turnId);
  const deltas = of(events, 'item.delta').filter((event) => event.kind === 'text');
  expect(deltas.length).toBeGreaterThan(0);
  expect(deltas.map((delta) => delta.text).join('')).toBe('Hello from the fake model.');
  expect(agentText(events)).toBe('Hello from the fake model.');
  const messages = of(events, 'item.completed').filter((event) => event.item.kind === 'agent_message');
  expect(messages).toHaveLength(1);
  expect(completed).toMatchObject({ outcome: { status: 'completed' }, stopReason: 'end_turn' });
  await recorder.close();
  return events;
}

/** `reportsOutput: false` for agents that send no tool output (Gemini CLI 0.61.0's shell). */
export async function shellTurn(
  rig: AcpRig,
  options: { reportsOutput?: boolean; checkFinalText?: boolean } = {},
): Promise<ToolCallItem> {
  rig.server.enqueue(
    reply().shell('echo hello-from-tool > tool-out.txt && cat tool-out.txt'),
    reply().text('The command ran.'),
  );
  const { session, recorder } = await rig.open();
  const sent = await session.send('Run the command please.');
  const completed = await recorder.terminalOf(sent);
  const events = recorder.turnEvents(sent.turnId);
  const tools = of(events, 'item.completed')
    .filter((event) => event.item.kind === 'tool_call')
    .map((event) => event.item as ToolCallItem);
  expect(tools).toHaveLength(1);
  const tool = tools[0] as ToolCallItem;
  expect(of(events, 'item.started').filter((event) => event.item.id === tool.id)).toHaveLength(1);
  expect(tool).toMatchObject({ status: 'completed', tool: { kind: 'command' } });
  expect(JSON.stringify(tool.input)).toContain('echo hello-from-tool');
  if (options.reportsOutput !== false) {
    expect(`${tool.output?.text ?? ''}${JSON.stringify(tool.output?.structured ?? '')}`).toContain('hello-from-tool');
  } else {
    // Absent, not invented: no description or title passed off as output.
    expect(tool.output?.text).toBeUndefined();
  }
  expect(readFileSync(join(rig.workspace, 'tool-out.txt'), 'utf8')).toBe('hello-from-tool\n');
  if (options.checkFinalText !== false) expect(agentText(events)).toContain('The command ran.');
  expect(completed.outcome).toEqual({ status: 'completed' });
  await recorder.close();
  return tool;
}

/** `toolCall`: the raw tool call to script instead of the model server's write recipe. */
export async function writeTurn(
  rig: AcpRig,
  options: { toolCall?: (path: string, content: string) => [string, unknown] } = {},
): Promise<ToolCallItem> {
  const target = join(rig.workspace, 'written-by-tool.txt');
  const content = 'written by fake model\n';
  const first = options.toolCall
    ? reply().toolCall(...options.toolCall(target, content))
    : reply().writeFile(target, content);
  rig.server.enqueue(first, reply().text('The file is written.'));
  const { session, recorder } = await rig.open();
  const sent = await session.send('Write the file please.');
  const completed = await recorder.terminalOf(sent);
  const events = recorder.turnEvents(sent.turnId);
  const tools = of(events, 'item.completed')
    .filter((event) => event.item.kind === 'tool_call')
    .map((event) => event.item as ToolCallItem);
  expect(tools).toHaveLength(1);
  const tool = tools[0] as ToolCallItem;
  expect(tool).toMatchObject({ status: 'completed', tool: { kind: 'file_change' } });
  const path = join(rig.workspace, 'written-by-tool.txt');
  expect(existsSync(path)).toBe(true);
  expect(readFileSync(path, 'utf8')).toBe('written by fake model\n');
  expect(completed.outcome).toEqual({ status: 'completed' });
  await recorder.close();
  return tool;
}

/** Cancels a turn whose model reply stalls, then runs one more turn to check the session is in step. */
export async function cancelTurn(rig: AcpRig): Promise<void> {
  rig.server.enqueue(reply().text('partial answer').stall());
  const { session, recorder } = await rig.open();
  const first = await session.send('Start something long.');
  await recorder.waitFor((event) => event.type === 'item.delta' && event.kind === 'text', 'a text delta');
  await session.interrupt();
  const cancelled = await recorder.terminalOf(first);
  expect(cancelled.outcome).toEqual({ status: 'cancelled' });
  // The next turn must carry ITS answer (claude-agent-acp 0.23.1 is off by one here without the fix).
  rig.server.enqueue(reply().text('Answer after the cancel.'));
  const second = await session.send('And now something short.');
  const next = await recorder.terminalOf(second);
  expect(next.outcome).toEqual({ status: 'completed' });
  // Everything after the cancelled turn's end, not only the next turn's own events: a late answer of
  // the cancelled turn arriving between the two turns is stale text too.
  const afterCancel = recorder.events.slice(recorder.events.indexOf(cancelled) + 1, recorder.events.indexOf(next) + 1);
  expect(agentText(afterCancel)).toBe('Answer after the cancel.');
  await recorder.close();
}

/** A turn, close, then resume the native session in a new process and go on. */
export async function resumeInNewProcess(rig: AcpRig): Promise<ReinsEvent[]> {
  rig.server.enqueue(reply().text('First answer.'));
  const first = await rig.open();
  await first.recorder.terminalOf(await first.session.send('Remember the word pineapple.'));
  const nativeId = first.session.nativeSessionId as string;
  await first.recorder.close();

  rig.server.enqueue(reply().text('Second answer.'));
  const second = await rig.open({ resume: { nativeSessionId: nativeId } });
  const setup = await second.recorder.collect(isStatus, 'the first session.status');
  expect(setup.some((event) => event.type === 'turn.started')).toBe(false);
  for (const event of of(setup, 'item.completed')) {
    expect(event.turnId).toBeNull();
    if (event.item.kind === 'user_message') expect(event.item.replay).toBe(true);
  }
  expect(second.session.nativeSessionId).toBe(nativeId);
  const completed = await second.recorder.terminalOf(await second.session.send('What was the word?'));
  expect(completed.outcome).toEqual({ status: 'completed' });
  // The agent sent the earlier conversation along: the continuation is real, not a fresh start.
  const last = rig.server.requests.filter((request) => request.scripted).at(-1);
  expect(JSON.stringify(last?.body)).toContain('pineapple');
  await second.recorder.close();
  return setup;
}

/** Switches to `alternate` live and checks the next model request used `serverModel`. */
/** `listsModels: false` for agents that list no models, so an unknown id cannot be refused up front. */
export async function modelSwitch(
  rig: AcpRig,
  alternate: string,
  serverModel: string | RegExp,
  options: { listsModels?: boolean } = {},
): Promise<void> {
  rig.server.enqueue(reply().text('On the other model.'));
  const { session, recorder } = await rig.open();
  const setup = await recorder.collect(isStatus, 'the first session.status');
  expect(await session.setModel(alternate)).toEqual({ applied: 'live' });
  if (options.listsModels !== false) {
    await expect(session.setModel('no-such-model-anywhere')).rejects.toMatchObject({ code: 'unsupported_model' });
  }
  const sent = await session.send('Which model?');
  const completed = await recorder.terminalOf(sent);
  expect(completed.outcome).toEqual({ status: 'completed' });
  // Reported after the start-up, where the first model was announced.
  const afterSetup = recorder.events.slice(setup.length);
  expect(afterSetup.some((event) => event.type === 'session.updated' && event.model === alternate)).toBe(true);
  const last = rig.server.requests.filter((request) => request.scripted).at(-1);
  if (typeof serverModel === 'string') expect(last?.model).toBe(serverModel);
  else expect(last?.model).toMatch(serverModel);
  expect(agentText(recorder.turnEvents(sent.turnId))).toBe('On the other model.');
  await recorder.close();
}

/** The model answers HTTP 400: the turn fails with provider_error. */
export async function providerError(rig: AcpRig): Promise<TurnCompletedEvent> {
  rig.server.enqueue(reply().httpError(400));
  const { session, recorder } = await rig.open();
  const completed = await recorder.terminalOf(await session.send('This request will be rejected.'));
  expect(completed.outcome).toMatchObject({
    status: 'failed',
    error: { code: 'provider_error', data: { kind: 'bad_request' } },
  });
  await recorder.close();
  return completed;
}
