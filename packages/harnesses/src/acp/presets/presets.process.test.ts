// codex-acp and hermes presets against the fake ACP agent. Hermes is a Python program not on npm;
// codex-acp is on npm (@zed-industries/codex-acp 0.16.0, native binaries) but not pinned in
// harness-clis, so both are exercised here through their preset launch lines only.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../../runtime/index.js';
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import type { AcpSession } from '../session.js';
import { codexAcpPreset } from './codex-acp/preset.js';
import { hermesPreset } from './hermes/preset.js';

const FAKE = fakeHarnessPath('acp');

let dir: string;
let cwd: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-acp-preset-'));
  cwd = join(dir, 'work');
  await mkdir(cwd);
});
afterEach(async () => {
  expect(liveProcessCount()).toBe(0);
  await rm(dir, { recursive: true, force: true });
});

const isStatus = (event: ReinsEvent) => event.type === 'session.status';

const presets = [
  { id: 'codex-acp', preset: codexAcpPreset, args: [] as string[] },
  { id: 'hermes', preset: hermesPreset, args: ['acp'] },
] as const;

describe.each(presets)('$id preset', ({ id, preset, args }) => {
  const create = (options: AcpHarnessOptions) => new AcpHarness(preset, options);
  it('launches with its arguments, runs a tool turn, and resumes in a new process', async () => {
    const log = join(dir, 'argv.log');
    const scenario = {
      agentInfo: { name: id, version: '9.9.9' },
      replies: [
        {
          match: 'tool',
          steps: [
            {
              update: {
                sessionUpdate: 'tool_call',
                toolCallId: 'c1',
                title: 'ls',
                kind: 'execute',
                status: 'in_progress',
                rawInput: { command: ['ls'] },
              },
            },
            {
              update: {
                sessionUpdate: 'tool_call_update',
                toolCallId: 'c1',
                status: 'completed',
                content: [{ type: 'content', content: { type: 'text', text: 'a.txt' } }],
              },
            },
            { text: 'listed' },
          ],
        },
      ],
    };
    const env = {
      PATH: process.env.PATH,
      FAKE_ACP_SCENARIO: JSON.stringify(scenario),
      FAKE_ACP_STORE: join(dir, 'store'),
      FAKE_ACP_LOG: log,
    };
    const harness = create({ binaryPath: FAKE, baseEnv: env, requestTimeoutMs: 5000 });
    expect(harness.id).toBe(id);
    const session = (await harness.createSession({ cwd })) as AcpSession;
    const recorder = new SessionRecorder(session, 30_000);
    const started = await recorder.collect(isStatus, 'the first session.status');
    expect(started[0]).toMatchObject({ type: 'session.started', harness: id, harnessVersion: '9.9.9' });
    const sent = await session.send('tool please');
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    const tool = recorder
      .turnEvents(sent.turnId)
      .find((event) => event.type === 'item.completed' && event.item.kind === 'tool_call');
    expect(tool).toMatchObject({
      item: { tool: { kind: 'command' }, input: { command: ['ls'] }, output: { text: 'a.txt' } },
    });
    const nativeSessionId = session.nativeSessionId as string;
    await recorder.close();
    expect((await readFile(log, 'utf8')).length).toBeGreaterThan(0);
    expect((await harness.capabilities()).sessionList.advertised.state).toBe('yes');

    const resumed = (await create({ binaryPath: FAKE, baseEnv: env, requestTimeoutMs: 5000 }).createSession({
      cwd,
      resume: { nativeSessionId },
    })) as AcpSession;
    const again = new SessionRecorder(resumed, 30_000);
    const replay = await again.collect(isStatus, 'the first session.status');
    expect(
      replay.some(
        (event) => event.type === 'item.completed' && event.item.kind === 'user_message' && event.item.replay === true,
      ),
    ).toBe(true);
    await again.close();
    void args;
  });
});
