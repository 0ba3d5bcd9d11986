// The console survives a dropped WebSocket: real Codex on the scripted model streams a long answer
// (many short messages, one streamed chunk every few dozen ms), the test cuts the page's TCP
// connection in the middle of it and refuses new ones for a while (the daemon goes on logging the
// stream meanwhile), then lets them through again. The page must say it lost the daemon, reconnect
// by itself, resubscribe with afterSeq, and end up with every event exactly once: the events it
// applied are the daemon's log (seq 1..last, the same types), the ones logged during the outage
// among them, and the transcript shows every word of the answer once, in order.
//
// The cut is real: Chromium resolves `localhost` to 127.0.0.2 (a host-resolver rule), where a small
// TCP proxy passes every connection to the daemon on 127.0.0.1:<port> unchanged, so Host, Origin and
// the Content-Security-Policy are the daemon's own. Cutting destroys the proxy's sockets (the page
// sees its socket close with no close frame) and stops it listening (reconnects are refused).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { type Daemon, silentLogger, startDaemon } from '@reins/daemon';
import {
  assertHermetic,
  harnessBinary,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  reply,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Browser, launchBrowser } from './browser.js';
import { send, startSession, transcriptRows, turnsEnded, WAIT_MS } from './real-rig.js';

const BUILT_CONSOLE = fileURLToPath(new URL('../dist/app/index.html', import.meta.url));
const PROXY_HOST = '127.0.0.2';
/** The answer: PARTS messages of 6 words each (the scripted model streams each in 3 chunks). */
const PARTS = 40;
const STORY = Array.from({ length: PARTS }, (_, part) =>
  Array.from({ length: 6 }, (_, word) => `p${part}w${word}`).join(' '),
);
const STORY_WORDS = STORY.join(' ').split(' ');
const STORY_WORD = /p\d+w\d+/g;

/** A TCP proxy on PROXY_HOST:port to 127.0.0.1:port that a test can cut and open again. */
class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Connections that opened a WebSocket (their first bytes ask for the upgrade). */
  upgrades = 0;

  constructor(private readonly port: number) {}

  async listen(): Promise<void> {
    const server = createServer((client) => this.pass(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, PROXY_HOST, () => resolve());
    });
    this.server = server;
  }

  /** Every connection through it dies at once (no close frame), and new ones are refused until listen(). */
  async cut(): Promise<number> {
    const server = this.server;
    this.server = undefined;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    const cutCount = this.sockets.size;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await closed;
    return cutCount;
  }

  private pass(client: Socket): void {
    const daemon = tcpConnect(this.port, '127.0.0.1');
    for (const socket of [client, daemon]) {
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        daemon.destroy();
      });
    }
    client.once('data', (head) => {
      if (/^upgrade:\s*websocket/im.test(head.toString('latin1'))) this.upgrades++;
    });
    client.pipe(daemon);
    daemon.pipe(client);
  }
}

/** Every event the page applied (seq and type), read from its raw-frames panel (newest first, "Show older" until all show). */
async function pageEvents(browser: Browser): Promise<string[]> {
  const { page } = browser;
  await page.getByTestId('debug-toggle').click();
  const panel = page.getByTestId('debug-panel');
  await panel.waitFor({ timeout: WAIT_MS });
  for (let step = 0; step < 100; step++) {
    const older = panel.getByRole('button', { name: 'Show older' });
    if ((await older.count()) === 0) break;
    await older.click();
  }
  const events = await panel.locator('[data-testid="frame"] summary').evaluateAll((summaries) =>
    summaries.map((summary) => {
      const [seq, type] = Array.from(summary.children).map((cell) => cell.textContent ?? '');
      return `${seq} ${type}`;
    }),
  );
  await page.getByTestId('debug-toggle').click();
  return events.reverse();
}

/** The daemon's own log of the session, read by a client of its own. */
async function daemonLog(daemon: Daemon, sessionId: string): Promise<ReinsEvent[]> {
  const client = await connect({ url: daemon.url, token: daemon.token, WebSocket });
  try {
    const lastSeq = (await client.listSessions()).find((entry) => entry.sessionId === sessionId)?.lastSeq ?? 0;
    const session = await client.attach(sessionId, { afterSeq: 0 });
    const events: ReinsEvent[] = [];
    if (lastSeq > 0) {
      for await (const event of session.events) {
        events.push(event);
        if (event.seq >= lastSeq) break;
      }
    }
    await session.detach();
    return events;
  } finally {
    client.close();
  }
}

let server: ModelServer;
let home: TempHome;
let daemon: Daemon;
let proxy: CuttableProxy;
let browser: Browser;
let workdir: string;

beforeAll(async () => {
  await assertHermetic();
  if (!existsSync(BUILT_CONSOLE)) {
    throw new Error(`The console is not built (${BUILT_CONSOLE} is missing): run \`npm run build\` first.`);
  }
  server = await startModelServer();
  home = await makeTempHome('reins-console-reconnect-');
  const binary = harnessBinary('codex');
  const launch = await harnessLaunch('codex', { modelServerUrl: server.url, tempHome: home, binary });
  workdir = join(home.dir, 'work');
  await mkdir(workdir, { recursive: true });
  daemon = await startDaemon({
    home: join(home.dir, 'reins'),
    harnesses: ['codex'],
    harnessOptions: { codex: { binaryPath: binary.command, baseEnv: launch.env, requestTimeoutMs: 60_000 } },
    logger: silentLogger,
  });
  proxy = new CuttableProxy(daemon.port);
  await proxy.listen();
  browser = await launchBrowser(undefined, [`--host-resolver-rules=MAP localhost ${PROXY_HOST}`]);
}, 180_000);
afterEach(async (context) => {
  if (context.task.result?.state === 'fail') await browser?.screenshot(`failed-${context.task.name.slice(0, 40)}`);
});
afterAll(async () => {
  // Each step whatever the one before did.
  await browser?.close().catch(() => {});
  await proxy?.cut().catch(() => {});
  await daemon?.close().catch(() => {});
  await server?.close().catch(() => {});
  await home?.cleanup().catch(() => {});
});

describe('console real: a dropped WebSocket', () => {
  it('reconnects by itself and resubscribes with afterSeq: the stream goes on with no gap and no duplicate', async () => {
    const { page } = browser;
    await page.goto(`http://localhost:${daemon.port}/#token=${daemon.token}`);
    await page.getByTestId('session-list').waitFor({ timeout: WAIT_MS });
    expect(proxy.upgrades).toBeGreaterThanOrEqual(1);
    const sessionId = await startSession(page, 'codex', workdir);

    // A long answer: 40 messages, a streamed chunk every 40 ms; it still streams well after the outage.
    const story = reply().delayMs(40);
    for (const part of STORY) story.text(part);
    server.enqueue(story);
    await send(page, 'Tell me a long story.');
    await page.locator('[data-testid="agent-text"]').filter({ hasText: 'p5w5' }).waitFor({ timeout: WAIT_MS });
    expect(await page.getByTestId('transcript').getAttribute('data-running')).toBe('true');

    // Cut: the page loses its socket mid-stream, and cannot get a new one for a while.
    const upgradesBefore = proxy.upgrades;
    expect(await proxy.cut()).toBeGreaterThanOrEqual(1);
    await page.getByTestId('reconnecting').waitFor({ timeout: WAIT_MS });
    // The daemon logs the stream meanwhile: wait until it is well past what the page had.
    const watcher = await connect({ url: daemon.url, token: daemon.token, WebSocket });
    const seqDuringOutage = async () =>
      (await watcher.listSessions()).find((entry) => entry.sessionId === sessionId)?.lastSeq ?? 0;
    const seqAtCut = await seqDuringOutage();
    let seqBeforeReopen = seqAtCut;
    for (let waited = 0; seqBeforeReopen < seqAtCut + 15 && waited < 100; waited++) {
      await page.waitForTimeout(100);
      seqBeforeReopen = await seqDuringOutage();
    }
    watcher.close();
    expect(seqBeforeReopen).toBeGreaterThan(seqAtCut);
    await browser.screenshot('reconnecting');

    // Let connections through again: the page reconnects by itself, through the proxy.
    await proxy.listen();
    await page.getByTestId('reconnecting').waitFor({ state: 'detached', timeout: WAIT_MS });
    expect(proxy.upgrades).toBeGreaterThan(upgradesBefore);

    // The turn is still running: what comes now arrives live on the new socket.
    expect(await page.getByTestId('transcript').getAttribute('data-running')).toBe('true');
    await browser.screenshot('reconnected');

    await turnsEnded(page, 1);
    // Every word of the answer once, in order, across the transcript (read top to bottom).
    const words = (await transcriptRows(page))
      .filter((row) => row.ids.includes('agent-text'))
      .flatMap((row) => row.text.match(STORY_WORD) ?? []);
    expect(words).toEqual(STORY_WORDS);

    // The events the page applied are the daemon's log, each once, in order.
    const log = await daemonLog(daemon, sessionId);
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    expect(await pageEvents(browser)).toEqual(log.map((event) => `#${event.seq} ${event.type}`));
    expect(Number(await page.getByTestId('transcript').getAttribute('data-last-seq'))).toBe(log.at(-1)?.seq);
    // The outage was in the middle of the stream: deltas came both before the cut and after it.
    const deltaSeqs = log.filter((event) => event.type === 'item.delta').map((event) => event.seq);
    expect(deltaSeqs.some((seq) => seq < seqAtCut)).toBe(true);
    expect(deltaSeqs.some((seq) => seq > seqAtCut && seq <= seqBeforeReopen)).toBe(true);
    expect(deltaSeqs.some((seq) => seq > seqBeforeReopen)).toBe(true);
    expect(browser.problems.filter((problem) => !/WebSocket|ERR_CONNECTION_REFUSED/.test(problem))).toEqual([]);
  }, 300_000);
});
