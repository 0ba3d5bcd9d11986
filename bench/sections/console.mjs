// Figure 10: the web console (issue 18) in Debian's Chromium through playwright-core, against the
// daemon with its real SQLite store. The sessions come from a fake Codex app-server that replays
// recorded Codex 0.169.0 frames as mixed turns (bench/fakes/codex-session.mjs): the user's message,
// streamed reasoning, a command with streamed output, a streamed answer, usage.
//
// (a) Opening a session of 20,000 events: a daemon hosts one session fed turn after turn until its
//     log holds 20,000 events; the daemon is restarted on the same store (the session is dormant,
//     every event is read from SQLite), then the console opens it, a few times each way:
//     - navigation: from the navigation start (performance.timeOrigin) of `/#/session/<id>` to the
//       first animation frame where the transcript holds the last seq and the list shows its end
//       (the last turn's end row in view), and to the first task that runs after that (the page
//       answers input again);
//     - click: on the loaded console, from the click on the session in the sidebar to the same;
//     - floors: a Node @reins/client attaching from seq 0 (the daemon and the wire alone), and a bare
//       page receiving the same notifications from a server of the bench's own with only JSON.parse,
//       one per message as the daemon sends them and 500 per message (Chromium's per-message cost).
// (b) Frame rate while 10 sessions stream at once: 10 sessions on one daemon, each opened once in
//     the console (it follows the most recent 8 of them, MAX_FOLLOWED in
//     packages/console/src/app/console-state.ts; the sidebar shows all 10 live), the last one on
//     screen; every session streams its answer at a fixed rate. requestAnimationFrame is counted in
//     the page over a few seconds, idle first (the ceiling of headless Chromium here), then
//     streaming; the deltas/s the daemon logged across the 10 sessions (their lastSeq over the same
//     window) are reported beside it, and the CPU time the page's main thread and Chromium's display
//     compositor took per second (thread time from a trace: what the page costs, whatever the load).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadline } from '../lib/rpc.mjs';
import { summarize } from '../lib/stats.mjs';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const CHROMIUM = process.env.REINS_CHROMIUM ?? '/usr/bin/chromium';
// The switches of packages/console/test/browser.ts: nothing that reaches for another host.
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
const OPEN_EVENTS = 20_000;
const STREAMING_SESSIONS = 10;
/** Answer deltas per second per streaming session (a fast model streams some 50-150 tokens/s). */
const DELTAS_PER_SECOND = 100;
const WAIT_MS = Number(process.env.BENCH_WAIT_MS ?? 120_000);

/** BENCH_CONSOLE_DIR serves another build of the console (an A/B of a change, in the same conditions). */
const consoleDir = process.env.BENCH_CONSOLE_DIR ? { consoleDir: process.env.BENCH_CONSOLE_DIR } : {};

function fakeCodex(benchDir, env) {
  return {
    codex: {
      binaryPath: join(benchDir, 'fakes/codex-session.mjs'),
      baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      requestTimeoutMs: 60_000,
    },
  };
}

/** Sends one turn on a session and resolves at its turn.completed (the session's events are consumed here). */
async function turn(session, events, text) {
  const sent = session.send(text);
  for (;;) {
    const next = await deadline(events.next(), WAIT_MS, `turn "${text}"`);
    if (next.done) throw new Error(`session ${session.id} ended during turn "${text}"`);
    if (next.value.type === 'turn.completed') {
      await sent;
      if (next.value.outcome.status !== 'completed') throw new Error(`turn "${text}" ${next.value.outcome.status}`);
      return next.value.seq;
    }
  }
}

async function launch(chromium) {
  const profile = await mkdtemp(join(tmpdir(), 'reins-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1360, height: 860 },
    colorScheme: 'dark',
    timeout: 60_000,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // What the page reported, for an error that says why a wait failed.
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  // The page-side measures, in every document before the console's own scripts.
  await page.addInitScript({
    content: `window.__reinsBenchRendered = ${whenRendered}; window.__reinsBenchFrames = ${countFrames}; (${watchWire})();`,
  });
  return {
    page,
    problems,
    async close() {
      await context.close().catch(() => {});
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * In the page, before the console's scripts: wraps WebSocket to note when the socket opened and when
 * the first and the last event notification (session/event or session/events) came, and how many
 * messages came: the split of an open between the page's start, the wire and the render.
 */
function watchWire() {
  const Native = window.WebSocket;
  const wire = { messages: 0 };
  window.__reinsBenchWire = wire;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      wire.created ??= performance.now();
      this.addEventListener('open', () => {
        wire.opened = performance.now();
      });
      this.addEventListener('message', (message) => {
        wire.messages++;
        // The answer to `initialize` and to the first `session/subscribe` (ids noted in send below).
        if (typeof message.data === 'string' && message.data.startsWith('{"jsonrpc":"2.0","id":')) {
          const id = JSON.parse(message.data).id;
          if (id === wire.initializeId) wire.initializeAnswered ??= performance.now();
          if (id === wire.subscribeId) wire.subscribeAnswered ??= performance.now();
        }
        if (typeof message.data === 'string' && message.data.startsWith('{"jsonrpc":"2.0","method":"session/event')) {
          wire.firstEvent ??= performance.now();
          wire.lastEvent = performance.now();
        }
      });
    }
    send(data) {
      if (typeof data === 'string' && wire.subscribeSent === undefined) {
        const { id, method } = JSON.parse(data);
        if (method === 'initialize' && wire.initializeSent === undefined) {
          wire.initializeSent = performance.now();
          wire.initializeId = id;
        }
        if (method === 'session/subscribe') {
          wire.subscribeSent = performance.now();
          wire.subscribeId = id;
        }
      }
      super.send(data);
    }
  };
}

/**
 * In the page: resolves with performance.now() at the first animation frame where the transcript
 * shows its first events (`firstEvents`: what the daemon and the wire take before the page has
 * anything), where it holds `lastSeq` and its list is scrolled to the end with the last turn's end
 * row in view (`rendered`), and at the first task after that (`interactive`).
 */
function whenRendered(lastSeq) {
  return new Promise((resolve) => {
    let firstEvents;
    const done = () => {
      const transcript = document.querySelector('[data-testid="transcript"]');
      const shownSeq = Number(transcript?.getAttribute('data-last-seq'));
      if (firstEvents === undefined && shownSeq > 0) firstEvents = performance.now();
      if (shownSeq !== lastSeq) return false;
      const scroller = transcript.querySelector('.scroller');
      if (!scroller || scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 2) return false;
      const ends = scroller.querySelectorAll('[data-testid="turn-end"]');
      const end = ends[ends.length - 1]?.getBoundingClientRect();
      const view = scroller.getBoundingClientRect();
      return end !== undefined && end.bottom <= view.bottom + 1 && end.top >= view.top;
    };
    const tick = () => {
      if (!done()) {
        requestAnimationFrame(tick);
        return;
      }
      const rendered = performance.now();
      const wire = window.__reinsBenchWire ?? {};
      const marks = {
        socketCreated: wire.created,
        socketOpen: wire.opened,
        initializeSent: wire.initializeSent,
        initializeAnswered: wire.initializeAnswered,
        subscribeSent: wire.subscribeSent,
        subscribeAnswered: wire.subscribeAnswered,
        firstEventMessage: wire.firstEvent,
        lastEventMessage: wire.lastEvent,
      };
      setTimeout(
        () => resolve({ firstEvents, rendered, interactive: performance.now(), ...marks, messages: wire.messages }),
        0,
      );
    };
    requestAnimationFrame(tick);
  });
}

/** What the transcript shows, for an error that says why a wait failed. */
async function shown(page, problems) {
  const state = await page
    .evaluate(() => {
      const transcript = document.querySelector('[data-testid="transcript"]');
      const scroller = transcript?.querySelector('.scroller');
      return {
        url: window.location.href.replace(/token=[^&]*/, 'token=…'),
        lastSeq: transcript?.getAttribute('data-last-seq') ?? null,
        scroll: scroller ? [scroller.scrollTop, scroller.clientHeight, scroller.scrollHeight] : null,
        banner: document.querySelector('[role="alert"], .banner')?.textContent ?? null,
        helper: typeof window.__reinsBenchRendered,
      };
    })
    .catch((error) => ({ error: String(error) }));
  return `${JSON.stringify(state)}; page errors: ${problems.slice(-5).join(' | ') || 'none'}`;
}

/** Fills a session on a fresh daemon until its log holds OPEN_EVENTS events; returns its id and last seq. */
async function fillSession(deps, benchDir, home, log) {
  const { startDaemon, connect, WebSocket } = deps;
  const daemon = await startDaemon({
    home,
    harnesses: ['codex'],
    logger: silent,
    ...consoleDir,
    harnessOptions: fakeCodex(benchDir, {}),
  });
  try {
    const client = await connect({ url: daemon.url, token: daemon.token, WebSocket, requestTimeoutMs: WAIT_MS });
    const session = await client.createSession('codex', { cwd: home });
    const events = session.events[Symbol.asyncIterator]();
    let lastSeq = 0;
    let turns = 0;
    const started = performance.now();
    while (lastSeq < OPEN_EVENTS) lastSeq = await turn(session, events, `Turn ${++turns}: run the tests and explain.`);
    log(
      `   filled a session: ${lastSeq} events in ${turns} turns (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    await session.detach();
    client.close();
    return { sessionId: session.id, lastSeq, turns };
  } finally {
    await daemon.close();
  }
}

/** A Node @reins/client attaching from seq 0: how long the daemon and the wire take for the whole log; the events. */
async function nodeReplay(deps, daemon, sessionId, lastSeq) {
  const client = await deps.connect({ url: daemon.url, token: daemon.token, WebSocket: deps.WebSocket });
  try {
    const started = performance.now();
    const session = await client.attach(sessionId, { afterSeq: 0 });
    const events = [];
    for await (const event of session.events) {
      events.push(event);
      if (event.seq >= lastSeq) break;
    }
    const ms = performance.now() - started;
    await session.detach();
    return { ms, events };
  } finally {
    client.close();
  }
}

/**
 * The browser's floor for the same events: a bare page on a server of its own receives them as the
 * daemon frames them (one session/event notification per event) with only JSON.parse in its handler,
 * then the same events 500 to a message. What Chromium's per-message cost is, apart from the console.
 */
async function wireFloor(deps, page, events) {
  const { createServer } = await import('node:http');
  const { WebSocketServer } = deps;
  const frames = events.map((event) =>
    JSON.stringify({ jsonrpc: '2.0', method: 'session/event', params: { sessionId: event.sessionId, event } }),
  );
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end('<!doctype html><title>floor</title>');
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket, request) => {
    if (request.url === '/batched') {
      for (let index = 0; index < frames.length; index += 500)
        socket.send(`[${frames.slice(index, index + 500).join(',')}]`);
    } else for (const frame of frames) socket.send(frame);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${server.address().port}`;
    await page.goto(url);
    const receive = (path) =>
      page.evaluate(
        ([socketUrl, count]) =>
          new Promise((resolve, reject) => {
            const started = performance.now();
            let received = 0;
            const socket = new WebSocket(socketUrl);
            socket.onerror = () => reject(new Error('the floor socket failed'));
            socket.onmessage = (message) => {
              const value = JSON.parse(message.data);
              received += Array.isArray(value) ? value.length : 1;
              if (received >= count) {
                resolve(performance.now() - started);
                socket.close();
              }
            };
          }),
        [`${url.replace('http', 'ws')}${path}`, frames.length],
      );
    const single = [];
    const batched = [];
    for (let run = 0; run < 3; run++) {
      single.push(await deadline(receive('/single'), WAIT_MS, 'the wire floor'));
      batched.push(await deadline(receive('/batched'), WAIT_MS, 'the wire floor'));
    }
    return {
      messages: frames.length,
      bytes: frames.reduce((sum, frame) => sum + frame.length, 0),
      onePerEventMs: summarize(single, { digits: 0 }),
      batched500Ms: summarize(batched, { digits: 0 }),
    };
  } finally {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

async function openFigures(deps, { benchDir, quick, log }) {
  const { startDaemon, chromium } = deps;
  const home = await mkdtemp(join(tmpdir(), 'reins-bench-console-'));
  let daemon;
  let browser;
  try {
    const filled = await fillSession(deps, benchDir, home, log);
    // A new daemon on the same store: the session is dormant and its whole log comes from SQLite.
    daemon = await startDaemon({
      home,
      harnesses: ['codex'],
      logger: silent,
      ...consoleDir,
      harnessOptions: fakeCodex(benchDir, {}),
    });
    // Its log as the daemon now has it (the restart itself adds the session's going dormant).
    const lister = await deps.connect({ url: daemon.url, token: daemon.token, WebSocket: deps.WebSocket });
    const listing = (await lister.listSessions()).find((entry) => entry.sessionId === filled.sessionId);
    lister.close();
    if (!listing) throw new Error('the restarted daemon does not list the filled session');
    const lastSeq = listing.lastSeq;
    browser = await launch(chromium);
    const { page } = browser;
    const origin = `http://127.0.0.1:${daemon.port}`;
    await page.goto(`${origin}/#token=${daemon.token}`);
    await page.getByTestId('session-list').waitFor({ timeout: WAIT_MS });
    const runs = quick ? 3 : 5;
    const marks = () => ({
      firstEvents: [],
      rendered: [],
      interactive: [],
      socketCreated: [],
      socketOpen: [],
      initializeSent: [],
      initializeAnswered: [],
      subscribeSent: [],
      subscribeAnswered: [],
      firstEventMessage: [],
      lastEventMessage: [],
      messages: [],
    });
    const navigation = marks();
    const click = { firstEvents: [], rendered: [], interactive: [] };
    // One unmeasured open first: the page cache, the store's pages and the JIT as a returning user has them.
    for (let run = 0; run <= runs; run++) {
      await page.goto('about:blank');
      await page.goto(`${origin}/#/session/${encodeURIComponent(filled.sessionId)}`, { waitUntil: 'commit' });
      const opened = await deadline(
        page.evaluate((lastSeq) => window.__reinsBenchRendered(lastSeq), lastSeq),
        WAIT_MS,
        'opening the session',
      ).catch(async (error) => {
        if (process.env.BENCH_SHOT) await page.screenshot({ path: process.env.BENCH_SHOT });
        throw new Error(
          `${error.message}; expected seq ${lastSeq}, the page shows ${await shown(page, browser.problems)}`,
        );
      });
      if (run > 0) for (const name of Object.keys(navigation)) navigation[name].push(opened[name] ?? Number.NaN);
      await page.goto('about:blank');
      await page.goto(`${origin}/#/`);
      const item = page.locator(`.session-item[data-session-id="${filled.sessionId}"]`);
      await item.waitFor({ timeout: WAIT_MS });
      const clicked = await deadline(
        item.evaluate((element, lastSeq) => {
          const start = performance.now();
          const rendered = window.__reinsBenchRendered(lastSeq);
          element.click();
          return rendered.then((at) => Object.fromEntries(Object.entries(at).map(([name, ms]) => [name, ms - start])));
        }, lastSeq),
        WAIT_MS,
        'opening the session by a click',
      ).catch(async (error) => {
        if (process.env.BENCH_SHOT) await page.screenshot({ path: process.env.BENCH_SHOT });
        throw new Error(
          `${error.message}; expected seq ${lastSeq}, the page shows ${await shown(page, browser.problems)}`,
        );
      });
      if (run > 0) for (const name of Object.keys(click)) click[name].push(clicked[name]);
    }
    // What the daemon and the wire take without the browser, and the browser's per-message floor.
    const replay = [];
    let replayed = [];
    for (let run = 0; run < 3; run++) {
      const { ms, events } = await nodeReplay(deps, daemon, filled.sessionId, lastSeq);
      replay.push(ms);
      replayed = events;
    }
    const floor = await wireFloor(deps, page, replayed);
    const result = {
      nodeClientReplayMs: summarize(replay, { digits: 0 }),
      wireFloor: floor,
      events: lastSeq,
      turns: filled.turns,
      runs,
      navigationFirstEventsMs: summarize(navigation.firstEvents, { digits: 0 }),
      navigationRenderedMs: summarize(navigation.rendered, { digits: 0 }),
      navigationInteractiveMs: summarize(navigation.interactive, { digits: 0 }),
      // The split of a navigation open: the page's start, the wire (subscribe to the last event), the render.
      navigationSocketCreatedMs: summarize(navigation.socketCreated, { digits: 0 }),
      navigationSocketOpenMs: summarize(navigation.socketOpen, { digits: 0 }),
      navigationInitializeSentMs: summarize(navigation.initializeSent, { digits: 0 }),
      navigationInitializeAnsweredMs: summarize(navigation.initializeAnswered, { digits: 0 }),
      navigationSubscribeSentMs: summarize(navigation.subscribeSent, { digits: 0 }),
      navigationSubscribeAnsweredMs: summarize(navigation.subscribeAnswered, { digits: 0 }),
      navigationFirstEventMessageMs: summarize(navigation.firstEventMessage, { digits: 0 }),
      navigationLastEventMessageMs: summarize(navigation.lastEventMessage, { digits: 0 }),
      navigationMessages: summarize(navigation.messages, { digits: 0 }),
      clickFirstEventsMs: summarize(click.firstEvents, { digits: 0 }),
      clickRenderedMs: summarize(click.rendered, { digits: 0 }),
      clickInteractiveMs: summarize(click.interactive, { digits: 0 }),
    };
    log(
      `   floors: a Node client receives the whole log in ${result.nodeClientReplayMs.median} ms; a bare page takes ${floor.onePerEventMs.median} ms for the ${floor.messages} notifications (${(floor.bytes / 1e6).toFixed(1)} MB) one per message, ${floor.batched500Ms.median} ms 500 per message`,
    );
    log(
      `   open ${result.events} events: navigation -> first events ${result.navigationFirstEventsMs.median} ms, rendered ${result.navigationRenderedMs.median} ms, interactive ${result.navigationInteractiveMs.median} ms; click -> first events ${result.clickFirstEventsMs.median} ms, rendered ${result.clickRenderedMs.median} ms, interactive ${result.clickInteractiveMs.median} ms (median of ${runs})`,
    );
    return result;
  } finally {
    await browser?.close();
    await daemon?.close();
    await rm(home, { recursive: true, force: true });
  }
}

/** In the page: counts animation frames for `ms`; the frame intervals with it. */
function countFrames(ms) {
  return new Promise((resolve) => {
    const stamps = [];
    const tick = (now) => {
      stamps.push(now);
      if (now - stamps[0] < ms) requestAnimationFrame(tick);
      else {
        const intervals = stamps.slice(1).map((stamp, index) => stamp - stamps[index]);
        resolve({ frames: intervals.length, durationMs: now - stamps[0], intervals });
      }
    };
    requestAnimationFrame(tick);
  });
}

function frameSummary({ frames, durationMs, intervals }) {
  const spread = summarize(intervals, { digits: 1, p99: true });
  return {
    fps: Number(((frames * 1000) / durationMs).toFixed(1)),
    frames,
    durationMs: Math.round(durationMs),
    frameMs: { median: spread.median, p99: spread.p99, max: spread.max },
  };
}

/**
 * Runs `during` under a Chromium trace of the top-level tasks (category `toplevel`, cheap) and returns
 * the CPU time (thread time, so the machine's load does not stretch it) per second of wall time of
 * the page's main thread and of the display compositor (software compositing with --disable-gpu): what
 * the page costs, apart from how much CPU the machine left it.
 */
async function threadCpu(page, during) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['toplevel', '__metadata'] },
  });
  const startedAt = performance.now();
  const result = await during();
  const wallMs = performance.now() - startedAt;
  await cdp.send('Tracing.end');
  await complete;
  await cdp.detach().catch(() => {});
  const threads = new Map();
  for (const event of events)
    if (event.name === 'thread_name') threads.set(`${event.pid}:${event.tid}`, event.args?.name);
  const cpuMs = { CrRendererMain: 0, VizCompositorThread: 0 };
  for (const event of events) {
    if (event.ph !== 'X' || event.name !== 'ThreadControllerImpl::RunTask') continue;
    const thread = threads.get(`${event.pid}:${event.tid}`);
    if (thread in cpuMs) cpuMs[thread] += (event.tdur ?? event.dur ?? 0) / 1000;
  }
  const perSecond = (ms) => Math.round((ms * 1000) / wallMs);
  return {
    result,
    cpu: { pageMainMsPerS: perSecond(cpuMs.CrRendererMain), compositorMsPerS: perSecond(cpuMs.VizCompositorThread) },
  };
}

async function frameFigures(deps, { benchDir, quick, log }) {
  const { startDaemon, connect, WebSocket, chromium } = deps;
  const seconds = quick ? 3 : 5;
  const home = await mkdtemp(join(tmpdir(), 'reins-bench-console-'));
  // Long enough answers that every session still streams when the window ends.
  const deltas = DELTAS_PER_SECOND * (seconds + 6);
  const daemon = await startDaemon({
    home,
    harnesses: ['codex'],
    logger: silent,
    ...consoleDir,
    harnessOptions: fakeCodex(benchDir, { BENCH_RATE: String(DELTAS_PER_SECOND), BENCH_TEXT_DELTAS: String(deltas) }),
  });
  let browser;
  let client;
  try {
    client = await connect({ url: daemon.url, token: daemon.token, WebSocket, requestTimeoutMs: WAIT_MS });
    const sessions = [];
    for (let index = 0; index < STREAMING_SESSIONS; index++) {
      const session = await client.createSession('codex', { cwd: home });
      // The bench only sends: the console is the one reading the events.
      await session.detach();
      sessions.push(session);
    }
    browser = await launch(chromium);
    const { page } = browser;
    const origin = `http://127.0.0.1:${daemon.port}`;
    await page.goto(`${origin}/#token=${daemon.token}`);
    await page.getByTestId('session-list').waitFor({ timeout: WAIT_MS });
    for (const session of sessions) {
      await page.evaluate((id) => {
        window.location.hash = `#/session/${encodeURIComponent(id)}`;
      }, session.id);
      await page.waitForFunction(
        (id) =>
          window.location.hash.endsWith(encodeURIComponent(id)) &&
          Number(document.querySelector('[data-testid="transcript"]')?.getAttribute('data-last-seq')) > 0,
        session.id,
        { timeout: WAIT_MS },
      );
    }
    const countFrames = () => page.evaluate((ms) => window.__reinsBenchFrames(ms), seconds * 1000);
    const idleRun = await threadCpu(page, countFrames);
    const idle = { ...frameSummary(idleRun.result), cpu: idleRun.cpu };
    log(`   idle: ${idle.fps} fps (frame p99 ${idle.frameMs.p99} ms); ${cpuText(idle.cpu)}`);

    const seqs = async () => {
      const listed = await client.listSessions();
      return listed.reduce((sum, entry) => sum + entry.lastSeq, 0);
    };
    const pageSeq = () =>
      page.evaluate(() => Number(document.querySelector('[data-testid="transcript"]')?.getAttribute('data-last-seq')));
    const sends = sessions.map((session, index) => session.send(`Stream ${index}: tell me a long story.`));
    await Promise.all(sends);
    // The turns' start (user message, reasoning and command output in one burst) is behind us.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const before = { daemon: await seqs(), page: await pageSeq(), at: performance.now() };
    const streamingRun = await threadCpu(page, countFrames);
    const streaming = { ...frameSummary(streamingRun.result), cpu: streamingRun.cpu };
    const after = { daemon: await seqs(), page: await pageSeq(), at: performance.now() };
    const window_ = (after.at - before.at) / 1000;
    const result = {
      sessions: STREAMING_SESSIONS,
      followed: Math.min(STREAMING_SESSIONS, 8),
      configuredDeltasPerSecond: DELTAS_PER_SECOND * STREAMING_SESSIONS,
      loggedEventsPerSecond: Math.round((after.daemon - before.daemon) / window_),
      shownSessionEventsPerSecond: Math.round((after.page - before.page) / window_),
      idle,
      streaming,
    };
    log(
      `   ${STREAMING_SESSIONS} sessions streaming: ${streaming.fps} fps (frame median ${streaming.frameMs.median} ms, p99 ${streaming.frameMs.p99} ms, max ${streaming.frameMs.max} ms) while the daemon logged ${result.loggedEventsPerSecond} events/s (fakes set to ${result.configuredDeltasPerSecond} deltas/s); the session on screen applied ${result.shownSessionEventsPerSecond} events/s; ${cpuText(streaming.cpu)}`,
    );
    if (after.page <= before.page)
      throw new Error('the session on screen received no events while the frames were counted');
    return result;
  } finally {
    client?.close();
    await browser?.close();
    await daemon.close();
    await rm(home, { recursive: true, force: true });
  }
}

function cpuText(cpu) {
  return `CPU ms per s: page main thread ${cpu?.pageMainMsPerS ?? '?'}, display compositor ${cpu?.compositorMsPerS ?? '?'}`;
}

function report(result) {
  const { open, frames } = result;
  const ms = (summary) => `${summary.median} ms (${summary.min}-${summary.max})`;
  return [
    '\n10. Console in Chromium: opening a session of 20,000 events (from SQLite), and frames per second while 10 sessions stream',
    `  open ${open.events} events (${open.turns} turns), median of ${open.runs} (min-max):`,
    `    navigation -> first events shown ${ms(open.navigationFirstEventsMs)}, last row rendered ${ms(open.navigationRenderedMs)}, interactive ${ms(open.navigationInteractiveMs)}`,
    `    split of a navigation: socket created ${ms(open.navigationSocketCreatedMs)}, open ${ms(open.navigationSocketOpenMs)}, first event message ${ms(open.navigationFirstEventMessageMs)}, last ${ms(open.navigationLastEventMessageMs)} (${open.navigationMessages.median} WebSocket messages in all)`,
    `    the page's requests: initialize sent ${ms(open.navigationInitializeSentMs)}, answered ${ms(open.navigationInitializeAnsweredMs)}; session/subscribe sent ${ms(open.navigationSubscribeSentMs)}, answered ${ms(open.navigationSubscribeAnsweredMs)}`,
    `    click      -> first events shown ${ms(open.clickFirstEventsMs)}, last row rendered ${ms(open.clickRenderedMs)}, interactive ${ms(open.clickInteractiveMs)}`,
    `    floors: a Node @reins/client receives the whole log in ${ms(open.nodeClientReplayMs)}; a bare Chromium page receives the same ${open.wireFloor.messages} notifications (${(open.wireFloor.bytes / 1e6).toFixed(1)} MB) in ${ms(open.wireFloor.onePerEventMs)} one per message, ${ms(open.wireFloor.batched500Ms)} 500 per message`,
    `  frames: idle ${frames.idle.fps} fps; ${frames.sessions} sessions streaming ${frames.streaming.fps} fps (frame median ${frames.streaming.frameMs.median} ms, p99 ${frames.streaming.frameMs.p99} ms, max ${frames.streaming.frameMs.max} ms)`,
    `          at ${frames.loggedEventsPerSecond} events/s logged by the daemon (fakes set to ${frames.configuredDeltasPerSecond} deltas/s), ${frames.shownSessionEventsPerSecond} events/s applied by the session on screen; ${frames.followed} of ${frames.sessions} followed`,
    `          ${cpuText(frames.streaming.cpu)} streaming (idle: ${frames.idle.cpu?.pageMainMsPerS ?? '?'}, ${frames.idle.cpu?.compositorMsPerS ?? '?'})`,
    '',
  ].join('\n');
}

export async function run({ quick, log, benchDir }) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set REINS_CHROMIUM.`);
  }
  const deps = {
    ...(await import('@reins/daemon')),
    ...(await import('@reins/client')),
    WebSocket: (await import('ws')).WebSocket,
    WebSocketServer: (await import('ws')).WebSocketServer,
    chromium: (await import('playwright-core')).chromium,
  };
  log('   (a) opening a session of 20,000 events');
  const open = await openFigures(deps, { benchDir, quick, log });
  log(`   (b) frames per second while ${STREAMING_SESSIONS} sessions stream`);
  const frames = await frameFigures(deps, { benchDir, quick, log });
  const result = { open, frames };
  return { ...result, report: report(result) };
}
