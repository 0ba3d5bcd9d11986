// Reins' confinement (posture workspace, bubblewrap) around a real child: the fake ACP agent writes a
// file itself inside its cwd and one outside; under workspace only the first lands and the second is
// the agent's own failed tool call, under bypass both land; without bwrap the posture is refused.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Posture, ReinsEvent, ToolCallItem } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAcpHarness } from '../acp/index.js';
import { createAmpHarness } from '../amp/adapter.js';
import { createPiHarness } from '../pi/adapter.js';
import { liveProcessCount, observeHarnessProcesses } from './index.js';

const FAKE = fakeHarnessPath('acp');

let dir: string;
let cwd: string;
let home: string;
const opened: SessionRecorder[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-confined-'));
  cwd = join(dir, 'work');
  home = join(dir, 'home');
  await Promise.all([mkdir(cwd), mkdir(home), mkdir(join(dir, 'tmp'))]);
});
afterEach(async () => {
  try {
    await SessionRecorder.closeAll(opened.splice(0));
    expect(liveProcessCount()).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** The fake agent with a HOME and TMPDIR of its own (TMPDIR is writable when confined; /tmp is not). */
function harness(path = process.env.PATH ?? '') {
  const outside = join(home, 'outside.txt');
  const scenario = {
    replies: [
      {
        steps: [
          { ownWrite: { path: 'inside.txt', content: 'inside\n' } },
          { ownWrite: { path: outside, content: 'outside\n' } },
          { text: 'done' },
        ],
      },
    ],
  };
  const h = createAcpHarness({
    command: FAKE,
    baseEnv: {
      PATH: path,
      HOME: home,
      TMPDIR: join(dir, 'tmp'),
      FAKE_ACP_SCENARIO: JSON.stringify(scenario),
      FAKE_ACP_STORE: join(dir, 'tmp', 'store'),
    },
    requestTimeoutMs: 15_000,
  });
  return { h, outside };
}

async function writeTurn(posture: Posture): Promise<{ tools: ToolCallItem[]; outside: string }> {
  const { h, outside } = harness();
  const session = await h.createSession({ cwd, posture });
  const recorder = new SessionRecorder(session, 30_000);
  opened.push(recorder);
  const sent = await session.send('write both files');
  expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
  const tools = recorder
    .turnEvents(sent.turnId)
    .flatMap((event: ReinsEvent) =>
      event.type === 'item.completed' && event.item.kind === 'tool_call' ? [event.item] : [],
    );
  return { tools, outside };
}

describe.runIf(process.platform === 'linux')('posture workspace: Reins confines the harness process', () => {
  it('a write inside the cwd lands; one outside fails as the agent’s own tool call and the turn goes on', async () => {
    const { tools, outside } = await writeTurn('workspace');
    expect(readFileSync(join(cwd, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(outside)).toBe(false);
    expect(tools.map((tool) => tool.status)).toEqual(['completed', 'failed']);
    expect(tools[1]?.output?.text).toMatch(/EROFS: read-only file system/);
  });

  it('under bypass the same write outside lands (the confinement is what stopped it)', async () => {
    const { tools, outside } = await writeTurn('bypass');
    expect(readFileSync(outside, 'utf8')).toBe('outside\n');
    expect(tools.map((tool) => tool.status)).toEqual(['completed', 'completed']);
  });

  it('without bwrap on PATH, workspace is refused up front naming apt install bubblewrap', async () => {
    // A PATH with node (for the fake's shebang) and nothing else.
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await symlink(process.execPath, join(bin, 'node'));
    const { h } = harness(bin);
    await expect(h.createSession({ cwd, posture: 'workspace' })).rejects.toMatchObject({
      code: 'unsupported_capability',
      message: expect.stringContaining('apt install bubblewrap'),
      data: { field: 'posture' },
    });
    expect(liveProcessCount()).toBe(0);
  });

  it('Pi and Amp sessions under workspace start under bwrap with their state folders bound', async () => {
    const started: number[] = [];
    const stop = observeHarnessProcesses({ started: ({ pid }) => started.push(pid), exited: () => {} });
    const env = { PATH: process.env.PATH, HOME: home, TMPDIR: join(dir, 'tmp') };
    const pi = createPiHarness({
      binaryPath: fakeHarnessPath('pi'),
      baseEnv: {
        ...env,
        FAKE_PI_TRANSCRIPT: fileURLToPath(new URL('../pi/fixtures/text.0.73.1.jsonl', import.meta.url)),
      },
    });
    const amp = createAmpHarness({ binaryPath: fakeHarnessPath('amp'), baseEnv: env });
    try {
      for (const harness of [pi, amp]) {
        const session = await harness.createSession({ cwd, posture: 'workspace' });
        opened.push(new SessionRecorder(session, 30_000));
        const pid = started.at(-1) as number;
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        expect(argv[0]).toMatch(/bwrap$/);
        expect(argv.slice(argv.indexOf('--bind'), argv.indexOf('--chdir'))).toContain(cwd);
      }
    } finally {
      stop();
    }
    // Each one's own folders were made to be bound (Pi's agent folder, Amp's XDG folders).
    expect(existsSync(join(home, '.pi', 'agent'))).toBe(true);
    expect(existsSync(join(home, '.local', 'share', 'amp'))).toBe(true);
  });
});
