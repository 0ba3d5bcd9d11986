// The behaviours every real ACP agent is checked on (text, shell, file write, cancel, resume in a
// new process, model switch, provider error), written once; each agent's *.real.test.ts calls them
// with its own differences. Every scenario asserts the stream rules (seq, one terminal per turn).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReinsEvent, ToolCallItem } from '@reins/core';
import { reply } from '@reins/testkit';
import { expect } from 'vitest';
import { assertStreamRules } from '../../src/acp/testing.js';
import { type AcpRig, agentText, of } from './acp-real.js';

const TURN_MS = 90_000;

export async function textTurn(rig: AcpRig): Promise<ReinsEvent[]> {
  rig.server.enqueue(
    reply()
      .reasoning('Thinking about a greeting.')
      .text('Hello from the fake model.')
      .usage({ input: 100, output: 20 }),
  );
  const { session, reader } = await rig.open();
  const started = await reader.until((event) => event.type === 'session.status');
  expect(of(started, 'session.started')[0]).toMatchObject({ cwd: rig.workspace, harnessVersion: expect.any(String) });
  expect(of(started, 'session.updated')[0]?.nativeSessionId).toBe(session.nativeSessionId);
  expect(await session.send('Say hello please.')).toMatchObject({ delivery: 'started' });
  const { events, completed } = await reader.turn(TURN_MS);
  const deltas = of(events, 'item.delta').filter((event) => event.kind === 'text');
  expect(deltas.length).toBeGreaterThan(0);
  expect(deltas.map((delta) => delta.text).join('')).toBe('Hello from the fake model.');
  expect(agentText(events)).toBe('Hello from the fake model.');
  const messages = of(events, 'item.completed').filter((event) => event.item.kind === 'agent_message');
  expect(messages).toHaveLength(1);
  expect(completed).toMatchObject({ outcome: { status: 'completed' }, stopReason: 'end_turn' });
  assertStreamRules(reader.all);
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
  const { session, reader } = await rig.open();
  await session.send('Run the command please.');
  const { events, completed } = await reader.turn(TURN_MS);
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
  assertStreamRules(reader.all);
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
  const { session, reader } = await rig.open();
  await session.send('Write the file please.');
  const { events, completed } = await reader.turn(TURN_MS);
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
  assertStreamRules(reader.all);
  return tool;
}

/** Cancels a turn whose model reply stalls, then runs one more turn to check the session is in step. */
export async function cancelTurn(rig: AcpRig): Promise<void> {
  rig.server.enqueue(reply().text('partial answer').stall());
  const { session, reader } = await rig.open();
  await session.send('Start something long.');
  await reader.until((event) => event.type === 'item.delta' && event.kind === 'text', TURN_MS);
  await session.interrupt();
  const cancelled = await reader.turn(TURN_MS);
  expect(cancelled.completed.outcome).toEqual({ status: 'cancelled' });
  // The next turn must carry ITS answer (claude-agent-acp 0.23.1 is off by one here without the fix).
  rig.server.enqueue(reply().text('Answer after the cancel.'));
  await session.send('And now something short.');
  const next = await reader.turn(TURN_MS);
  expect(next.completed.outcome).toEqual({ status: 'completed' });
  expect(agentText(next.events)).toBe('Answer after the cancel.');
  assertStreamRules(reader.all);
}

/** A turn, close, then resume the native session in a new process and go on. */
export async function resumeInNewProcess(rig: AcpRig): Promise<ReinsEvent[]> {
  rig.server.enqueue(reply().text('First answer.'));
  const first = await rig.open();
  await first.session.send('Remember the word pineapple.');
  await first.reader.turn(TURN_MS);
  const nativeId = first.session.nativeSessionId as string;
  await first.session.close();
  await first.reader.rest();
  assertStreamRules(first.reader.all);

  rig.server.enqueue(reply().text('Second answer.'));
  const second = await rig.open({ resume: { nativeSessionId: nativeId } });
  const setup = await second.reader.until((event) => event.type === 'session.status', TURN_MS);
  expect(setup.some((event) => event.type === 'turn.started')).toBe(false);
  for (const event of of(setup, 'item.completed')) {
    expect(event.turnId).toBeNull();
    if (event.item.kind === 'user_message') expect(event.item.replay).toBe(true);
  }
  expect(second.session.nativeSessionId).toBe(nativeId);
  await second.session.send('What was the word?');
  const { completed } = await second.reader.turn(TURN_MS);
  expect(completed.outcome).toEqual({ status: 'completed' });
  // The agent sent the earlier conversation along: the continuation is real, not a fresh start.
  const last = rig.server.requests.filter((request) => request.scripted).at(-1);
  expect(JSON.stringify(last?.body)).toContain('pineapple');
  assertStreamRules(second.reader.all);
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
  const { session, reader } = await rig.open();
  await reader.until((event) => event.type === 'session.status', TURN_MS);
  expect(await session.setModel(alternate)).toEqual({ applied: 'live' });
  if (options.listsModels !== false) {
    await expect(session.setModel('no-such-model-anywhere')).rejects.toMatchObject({ code: 'unsupported_model' });
  }
  await session.send('Which model?');
  const { events, completed } = await reader.turn(TURN_MS);
  expect(completed.outcome).toEqual({ status: 'completed' });
  expect(reader.all.some((event) => event.type === 'session.updated' && event.model === alternate)).toBe(true);
  const last = rig.server.requests.filter((request) => request.scripted).at(-1);
  if (typeof serverModel === 'string') expect(last?.model).toBe(serverModel);
  else expect(last?.model).toMatch(serverModel);
  expect(agentText(events)).toBe('On the other model.');
  assertStreamRules(reader.all);
}

/** The model answers HTTP 400: the turn fails with provider_error. */
export async function providerError(rig: AcpRig): Promise<ReinsEvent & { type: 'turn.completed' }> {
  rig.server.enqueue(reply().httpError(400));
  const { session, reader } = await rig.open();
  await session.send('This request will be rejected.');
  const { completed } = await reader.turn(TURN_MS);
  expect(completed.outcome).toMatchObject({
    status: 'failed',
    error: { code: 'provider_error', data: { kind: 'bad_request' } },
  });
  assertStreamRules(reader.all);
  return completed;
}
