// The page's start, in a real Chromium against a real daemon: the console's entry opens its
// WebSocket before the connection's code (@reins/client, zod, the protocol's schemas) is evaluated,
// and the client takes that same socket over: one socket, the page connected, nothing refused by the
// Content-Security-Policy. How much sooner the socket opens is the bench's (figure 10a); this only
// holds the order. zod marks its evaluation with a global registry (`__zod_globalRegistry`); the
// test checks the page has it in the end, so a renamed marker fails here instead of passing blind.
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

interface StartRecord {
  sockets: number;
  /** Whether zod had been evaluated when the page constructed its first WebSocket. */
  zodBeforeSocket?: boolean;
}

/** In the page, before its scripts: counts the WebSockets it constructs and notes the order. */
function recordStart(): void {
  const record: StartRecord = { sockets: 0 };
  (window as unknown as { __start: StartRecord }).__start = record;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      record.sockets++;
      record.zodBeforeSocket ??= '__zod_globalRegistry' in globalThis;
    }
  };
}

let home: string;
let daemon: Daemon | undefined;
let browser: Browser;
let sessionId: string;

beforeAll(async () => {
  await assertHermetic();
  if (!existsSync(BUILT_CONSOLE)) {
    throw new Error(`The console is not built (${BUILT_CONSOLE} is missing): run \`npm run build\` first.`);
  }
  home = await mkdtemp(join(tmpdir(), 'reins-console-start-'));
  daemon = await startDaemon({
    home,
    harnesses: ['codex'],
    logger: silentLogger,
    createHarness: async () => new ScriptedHarness('codex', { deltas: 3 }),
  });
  const client = await connect({ url: daemon.url, token: daemon.token, WebSocket });
  const session = await client.createSession('codex', { cwd: home });
  sessionId = session.id;
  await session.send('hello');
  for await (const event of session.events) if (event.type === 'session.status' && event.status === 'idle') break;
  await session.detach();
  client.close();
  browser = await launchBrowser();
  await browser.page.addInitScript(recordStart);
}, 120_000);
afterAll(async () => {
  await browser?.close().catch(() => {});
  await daemon?.close().catch(() => {});
  if (home) await rm(home, { recursive: true, force: true });
});

async function started(): Promise<StartRecord & { zodNow: boolean }> {
  return browser.page.evaluate(() => ({
    ...(window as unknown as { __start: StartRecord }).__start,
    zodNow: '__zod_globalRegistry' in globalThis,
  }));
}

describe('console real: the page start', () => {
  it('opens its socket before zod is evaluated, and the client connects over that socket', async () => {
    if (!daemon) throw new Error('no daemon');
    const { page } = browser;
    await page.goto(consoleUrl(daemon.port, daemon.token));
    await page.locator(`.session-item[data-session-id="${sessionId}"]`).waitFor({ timeout: WAIT_MS });
    expect(await started()).toEqual({ sockets: 1, zodBeforeSocket: false, zodNow: true });

    // A page opened on a session (the token now in the tab): the same order, and the session shown.
    await page.goto('about:blank');
    await page.goto(`http://127.0.0.1:${daemon.port}/#/session/${encodeURIComponent(sessionId)}`);
    await page.locator('[data-testid="turn-end"]').first().waitFor({ timeout: WAIT_MS });
    expect(await started()).toEqual({ sockets: 1, zodBeforeSocket: false, zodNow: true });
    expect(browser.problems).toEqual([]);
  });
});
