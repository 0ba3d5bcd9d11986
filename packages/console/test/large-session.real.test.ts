// A session of 20,000 events opens in the console, in a real Chromium against a real daemon that
// replays it from its SQLite store: the transcript ends up holding the last seq with the list at its
// end, and the page reports no error on the way. This once failed with React error 185 (a render
// loop): rows taller than the virtual list's estimate made the scroller taller before they were
// measured, and the stick-to-bottom effect and the visible range chased each other within one
// commit. The harness is the daemon tests' in-process scripted one (long user messages make tall
// rows; many deltas make the event count); how long the open takes is the bench's (figure 10). The
// replay reaches the page in session/events batches (the console's client asks for them), some 40
// WebSocket messages rather than one per event.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@reins/client';
import { type Daemon, silentLogger, startDaemon } from '@reins/daemon';
import { assertHermetic } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ScriptedHarness } from '../../daemon/test/scripted-harness.js';
import { type Browser, consoleUrl, launchBrowser } from './browser.js';
import { WAIT_MS } from './real-rig.js';

const BUILT_CONSOLE = fileURLToPath(new URL('../dist/app/index.html', import.meta.url));
const EVENTS = 20_000;
const DELTAS_PER_TURN = 330;

let home: string;
let daemon: Daemon | undefined;
let browser: Browser;
const harness = () => new ScriptedHarness('codex', { deltas: DELTAS_PER_TURN });
const start = (home: string) =>
  startDaemon({ home, harnesses: ['codex'], logger: silentLogger, createHarness: async () => harness() });

beforeAll(async () => {
  await assertHermetic();
  if (!existsSync(BUILT_CONSOLE)) {
    throw new Error(`The console is not built (${BUILT_CONSOLE} is missing): run \`npm run build\` first.`);
  }
  home = await mkdtemp(join(tmpdir(), 'reins-console-large-'));
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close().catch(() => {});
  await daemon?.close().catch(() => {});
  if (home) await rm(home, { recursive: true, force: true });
});

describe('console real: a large session', () => {
  it('opens a session of 20,000 events from the store: the last seq shown, the list at its end, no page error', async () => {
    // Fill one session, turn after turn, with long user messages (tall bubbles).
    daemon = await start(home);
    const client = await connect({ url: daemon.url, token: daemon.token, WebSocket });
    const session = await client.createSession('codex', { cwd: home });
    const events = session.events[Symbol.asyncIterator]();
    let lastSeq = 0;
    let turns = 0;
    for (let turn = 1; lastSeq < EVENTS; turn++) {
      turns = turn;
      const words = Array.from({ length: 40 + (turn % 7) * 30 }, (_, index) => `t${turn}word${index}`);
      await session.send(words.join(' '));
      for (;;) {
        const next = await events.next();
        if (next.done) throw new Error('the session ended while it was being filled');
        lastSeq = next.value.seq;
        if (next.value.type === 'session.status' && next.value.status === 'idle') break;
      }
    }
    await session.detach();
    client.close();

    // A new daemon on the same store: the session is dormant and its whole log comes from SQLite.
    await daemon.close();
    daemon = await start(home);
    const lister = await connect({ url: daemon.url, token: daemon.token, WebSocket });
    const listed = (await lister.listSessions()).find((entry) => entry.sessionId === session.id);
    lister.close();
    expect(listed?.lastSeq).toBeGreaterThanOrEqual(EVENTS);

    const { page } = browser;
    await page.goto(consoleUrl(daemon.port, daemon.token));
    await page.getByTestId('session-list').waitFor({ timeout: WAIT_MS });
    // A page error ends the wait at once (a render loop leaves the page blank, nothing to wait for).
    let onError: (error: Error) => void = () => {};
    const crashed = new Promise<never>((_, reject) => {
      onError = (error) => reject(new Error(`the page threw: ${error.message}`));
      page.on('pageerror', onError);
    });
    crashed.catch(() => {});
    // What reaches the page over its WebSocket: the replay comes in session/events batches.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const received = { batches: 0, single: 0, messages: 0 };
    cdp.on('Network.webSocketFrameReceived', ({ response }) => {
      received.messages++;
      if (response.payloadData.startsWith('{"jsonrpc":"2.0","method":"session/events"')) received.batches++;
      else if (response.payloadData.startsWith('{"jsonrpc":"2.0","method":"session/event"')) received.single++;
    });
    await page.locator(`.session-item[data-session-id="${session.id}"]`).click();
    const opened = page.waitForFunction(
      (expected) => {
        const transcript = document.querySelector('[data-testid="transcript"]');
        const scroller = transcript?.querySelector('.scroller');
        return (
          Number(transcript?.getAttribute('data-last-seq')) === expected &&
          scroller !== null &&
          scroller !== undefined &&
          scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 2
        );
      },
      listed?.lastSeq,
      { timeout: WAIT_MS },
    );
    await Promise.race([opened, crashed]).finally(() => page.off('pageerror', onError));
    // The newest bubble shows, and the page never threw (React error 185 was a pageerror).
    const lastWords = await page.locator('[data-testid="user-bubble"]').last().textContent();
    expect(lastWords).toMatch(new RegExp(`^t${turns}word0 `));
    await browser.screenshot('large-session');
    await cdp.detach();
    // Some 40 frames of at most 512 events, not one message per event.
    expect(received.batches).toBeGreaterThanOrEqual(Math.floor((listed?.lastSeq ?? 0) / 512));
    expect(received.messages).toBeLessThan((listed?.lastSeq ?? 0) / 100);
    expect(browser.problems).toEqual([]);
  }, 300_000);
});
