// Principle 8 through both bridges (docs/architecture/contract.md): `reins bridge acp -H codex` and
// `reins bridge codex-app-server -H codex` run as real subprocesses in front of the fake Codex, which
// sends mid-turn the frames that used to crash the whole process (an item of an unknown type, an
// unknown thread status, an item/started without its item). The bridge keeps serving: the turn
// completes for its client with its text, and the bridge still answers (and closes cleanly).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createHarness, liveProcessCount } from '@reins/harnesses';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REINS } from './support/processes.js';

const FAKE_CODEX = fakeHarnessPath('codex');
const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);
const POISON = [
  { method: 'item/started', params: { threadId: '{{threadId}}', item: { type: 'futureItemKind', id: 'x' } } },
  { method: 'thread/status/changed', params: { threadId: '{{threadId}}', status: { type: 'paused' } } },
  { method: 'item/started', params: { threadId: '{{threadId}}' } },
];

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'reins-bridge-poison-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

function env(frame: unknown): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: cwd,
    REINS_HOME: join(cwd, 'reins-home'),
    FAKE_CODEX_TRANSCRIPT: TRANSCRIPT,
    FAKE_CODEX_INJECT: JSON.stringify(frame),
    FAKE_CODEX_INJECT_AFTER: 'item/agentMessage/delta',
  };
}

describe.each(POISON.map((frame) => [frame.method, frame] as const))(
  'a poisoned Codex frame (%s)',
  (_method, frame) => {
    it('through reins bridge acp: the turn completes for the ACP client and the bridge closes cleanly', async () => {
      const harness = await createHarness('acp', {
        command: process.execPath,
        args: [REINS, 'bridge', 'acp', '-H', 'codex', '--binary', FAKE_CODEX],
        baseEnv: env(frame),
        requestTimeoutMs: 15_000,
      });
      const session = await harness.createSession({ cwd });
      const recorder = new SessionRecorder(session, 15_000);
      const terminal = await recorder.turn('Say hello.');
      expect(terminal.outcome).toEqual({ status: 'completed' });
      const texts = recorder
        .turnEvents(terminal.turnId as string)
        .flatMap((event) =>
          event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
        );
      expect(texts).toEqual(['Hello from the scripted model.']);
      await recorder.close();
      expect(liveProcessCount()).toBe(0);
    });

    it('through reins bridge codex-app-server: turn/completed arrives, the bridge answers the next request', async () => {
      const child: ChildProcess = spawn(
        process.execPath,
        [REINS, 'bridge', 'codex-app-server', '-H', 'codex', '--binary', FAKE_CODEX],
        { cwd, env: env(frame), stdio: ['pipe', 'pipe', 'pipe'] },
      );
      const messages: Array<Record<string, unknown>> = [];
      const waiters: Array<() => void> = [];
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        messages.push(JSON.parse(line) as Record<string, unknown>);
        for (const wake of waiters.splice(0)) wake();
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const waitFor = async (test: (message: Record<string, unknown>) => boolean, what: string) => {
        const deadline = Date.now() + 20_000;
        for (;;) {
          const found = messages.find(test);
          if (found) return found;
          if (Date.now() > deadline) throw new Error(`no ${what} from the bridge`);
          await new Promise<void>((resolve) => {
            waiters.push(resolve);
            setTimeout(resolve, 200);
          });
        }
      };
      let id = 0;
      const request = (method: string, params: unknown) => {
        const requestId = ++id;
        child.stdin?.write(`${JSON.stringify({ id: requestId, method, params })}\n`);
        return waitFor((message) => message.id === requestId, `answer to ${method}`);
      };
      try {
        await request('initialize', { clientInfo: { name: 'poison-test', version: '0' }, capabilities: null });
        child.stdin?.write(`${JSON.stringify({ method: 'initialized' })}\n`);
        const started = (await request('thread/start', { cwd })) as { result?: { thread?: { id?: string } } };
        const threadId = started.result?.thread?.id;
        expect(threadId).toBeTruthy();
        await request('turn/start', { threadId, input: [{ type: 'text', text: 'Say hello.', text_elements: [] }] });
        const completed = await waitFor((message) => message.method === 'turn/completed', 'turn/completed');
        expect((completed.params as { turn?: { status?: string } }).turn?.status).toBe('completed');
        // Still serving.
        const read = (await request('thread/read', { threadId, includeTurns: false })) as { result?: unknown };
        expect(read.result).toBeDefined();
      } finally {
        child.stdin?.end();
        expect(await exited).toBe(0);
      }
    });
  },
);
