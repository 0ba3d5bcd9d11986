// `reins chat` in a real terminal: tmux runs the built CLI against the real pinned Codex; the test
// types with send-keys and reads the screen with capture-pane.
import { execFileSync } from 'node:child_process';
import { assertHermetic, type ModelServer, reply, startModelServer } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REINS_BIN } from './cli.js';
import { type UserEnv, userEnvFor } from './harness-env.js';

const socket = `reins-chat-test-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 'chat');
const keys = (...keys: string[]) => tmux('send-keys', '-t', 'chat', ...keys);

async function screenShows(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = screen();
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`The terminal never showed ${pattern}. Screen:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

let server: ModelServer;
let user: UserEnv;
beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
  user = await userEnvFor('codex', server);
  const env = Object.entries({ ...user.env, TERM: 'xterm-256color' })
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${shellQuote(value as string)}`);
  const command = [
    'env',
    '-i',
    ...env,
    shellQuote(process.execPath),
    shellQuote(REINS_BIN),
    'chat',
    '-H',
    'codex',
    '-C',
    shellQuote(user.workdir),
  ];
  tmux('new-session', '-d', '-s', 'chat', '-x', '160', '-y', '50', command.join(' '));
});
afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  await server?.close();
  await user?.temp.cleanup();
});

describe('reins chat under tmux (real Codex)', () => {
  it('runs a turn, interrupts one with Ctrl-C, switches model, and quits', async () => {
    await screenShows(/codex session .* · \/quit to leave/);
    server.enqueue(reply().text('Hello from the chat test.'));
    keys('Say hello', 'Enter');
    await screenShows(/Hello from the chat test\.[\s\S]*✓ completed/);

    server.enqueue(reply().text('A very long answer').stall());
    const before = server.requests.length;
    keys('Tell me everything', 'Enter');
    await server.waitForRequests(2, { timeoutMs: 60_000 });
    expect(server.requests.length).toBeGreaterThan(before);
    keys('C-c');
    await screenShows(/interrupting…[\s\S]*■ cancelled/);

    keys('/model fake-model-2', 'Enter');
    await screenShows(/model → fake-model-2 \((next turn|live|restart)\)/);
    server.enqueue(reply().text('Now on the second model.'));
    keys('Which model?', 'Enter');
    await screenShows(/Now on the second model\./);
    const scripted = server.requests.filter((request) => request.scripted);
    expect(scripted.at(-1)?.model).toBe('fake-model-2');

    keys('/status', 'Enter');
    await screenShows(/session \S+ · native \S+ · model fake-model-2/);

    keys('/quit', 'Enter');
    const deadline = Date.now() + 20_000;
    for (;;) {
      const sessions = (() => {
        try {
          return tmux('list-sessions');
        } catch {
          return '';
        }
      })();
      if (!sessions.includes('chat')) break;
      if (Date.now() > deadline) throw new Error(`chat did not exit after /quit. Screen:\n${screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
