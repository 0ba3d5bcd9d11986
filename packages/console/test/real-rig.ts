// The console's real-tier rig: the scripted model server, real pinned Codex and Claude Code in
// hermetic homes behind a real daemon (which serves the built console), and Debian's Chromium on
// the console. Everything runs inside the loopback-only namespace (the real tier's launcher).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HarnessId } from '@reins/core';
import { type Daemon, type DaemonOptions, silentLogger, startDaemon } from '@reins/daemon';
import {
  assertHermetic,
  harnessBinary,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import type { Locator, Page } from 'playwright-core';
import { type Browser, consoleUrl, launchBrowser } from './browser.js';

/** The extra model the homes configure, for the model switch. */
export const ALTERNATE_MODEL = 'fake-model-2';
export const WAIT_MS = 120_000;

const BUILT_CONSOLE = fileURLToPath(new URL('../dist/app/index.html', import.meta.url));

export interface ConsoleRig {
  server: ModelServer;
  daemon: Daemon;
  browser: Browser;
  page: Page;
  /** A working directory per harness. */
  workdirs: Record<'codex' | 'claude-code', string>;
  /** Stops the daemon (sessions go dormant) and starts it again on the same port and store: a new token. */
  restartDaemon(): Promise<Daemon>;
  /** Opens the console with the current daemon's token, as `reins console` would. */
  open(): Promise<void>;
  dispose(): Promise<void>;
}

export async function consoleRig(): Promise<ConsoleRig> {
  await assertHermetic();
  if (!existsSync(BUILT_CONSOLE)) {
    throw new Error(`The console is not built (${BUILT_CONSOLE} is missing): run \`npm run build\` first.`);
  }
  const server = await startModelServer();
  const homes: TempHome[] = [];
  const harnessOptions: NonNullable<DaemonOptions['harnessOptions']> = {};
  const workdirs = {} as ConsoleRig['workdirs'];
  for (const id of ['codex', 'claude-code'] as const satisfies HarnessId[]) {
    const tempHome = await makeTempHome(`reins-console-${id}-`);
    homes.push(tempHome);
    const binary = harnessBinary(id);
    const launch = await harnessLaunch(id, {
      modelServerUrl: server.url,
      tempHome,
      binary,
      extraModels: [ALTERNATE_MODEL],
    });
    harnessOptions[id] = { binaryPath: binary.command, baseEnv: launch.env, requestTimeoutMs: 60_000 };
    workdirs[id] = join(tempHome.dir, 'work');
    await mkdir(workdirs[id], { recursive: true });
  }
  const options: DaemonOptions = {
    home: join(homes[0]?.dir as string, 'reins'),
    harnesses: ['codex', 'claude-code'],
    harnessOptions,
    logger: silentLogger,
  };
  let daemon = await startDaemon(options);
  const browser = await launchBrowser();
  const rig: ConsoleRig = {
    server,
    get daemon() {
      return daemon;
    },
    browser,
    page: browser.page,
    workdirs,
    async restartDaemon() {
      const port = daemon.port;
      await daemon.close();
      daemon = await startDaemon({ ...options, port });
      return daemon;
    },
    async open() {
      await browser.page.goto(consoleUrl(daemon.port, daemon.token));
      await browser.page.getByTestId('session-list').waitFor({ timeout: WAIT_MS });
    },
    async dispose() {
      // Each step whatever the one before did: the homes go even when a close failed.
      await browser.close().catch(() => {});
      await daemon.close().catch(() => {});
      await server.close().catch(() => {});
      for (const home of homes) await home.cleanup().catch(() => {});
    },
  };
  return rig;
}

/** Starts a session from the console's New session page and waits until its page shows. */
export async function startSession(
  page: Page,
  harness: 'codex' | 'claude-code',
  cwd: string,
  options: { posture?: 'ask' } = {},
): Promise<string> {
  await page.getByRole('button', { name: '+ New session' }).click();
  const option = page.locator(`.harness-option[data-harness="${harness}"]`);
  await option.waitFor({ timeout: WAIT_MS });
  await option.click();
  await page.getByTestId('cwd-input').fill(cwd);
  if (options.posture === 'ask') await page.getByTestId('posture-ask').click();
  await page.getByTestId('create-session').click();
  await page.getByTestId('session-header').waitFor({ timeout: WAIT_MS });
  const match = /#\/session\/(.+)$/.exec(page.url());
  if (!match?.[1]) throw new Error(`No session page after creating a ${harness} session (at ${page.url()}).`);
  return decodeURIComponent(match[1]);
}

/** Types a message and sends it with Enter, as a user does. */
export async function send(page: Page, text: string): Promise<void> {
  const box = page.getByLabel('Message');
  await box.fill(text);
  await box.press('Enter');
}

/** The last matching element, once visible. */
export async function last(locator: Locator, timeout = WAIT_MS): Promise<Locator> {
  const element = locator.last();
  await element.waitFor({ state: 'visible', timeout });
  return element;
}

/** Waits until the session shows `count` finished turns (whatever their outcome) and none running. */
export async function turnsEnded(page: Page, count: number): Promise<void> {
  await page.waitForFunction(
    (expected) => {
      const transcript = document.querySelector('[data-testid="transcript"]');
      return Number(transcript?.getAttribute('data-turns-ended')) >= expected;
    },
    count,
    { timeout: WAIT_MS },
  );
}

/**
 * Every row of the transcript, read by scrolling the virtualized list from top to bottom (only the
 * rows near the viewport are in the DOM): each row once, by its key, with the test ids and text in it.
 */
export async function transcriptRows(page: Page): Promise<Array<{ key: string; ids: string[]; text: string }>> {
  const rows = new Map<string, { key: string; ids: string[]; text: string }>();
  const read = async () => {
    const seen = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('.scroller [data-key]')).map((slot) => ({
        key: slot.dataset.key ?? '',
        ids: Array.from(slot.querySelectorAll('[data-testid]')).map(
          (element) => element.getAttribute('data-testid') ?? '',
        ),
        text: slot.textContent ?? '',
      })),
    );
    for (const row of seen) rows.set(row.key, row);
  };
  await page.evaluate(() => {
    const scroller = document.querySelector('.scroller');
    if (scroller) scroller.scrollTop = 0;
  });
  for (let step = 0; step < 200; step++) {
    await page.waitForTimeout(50);
    await read();
    const atBottom = await page.evaluate(() => {
      const scroller = document.querySelector('.scroller');
      if (!scroller) return true;
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 2) return true;
      scroller.scrollTop += scroller.clientHeight / 2;
      return false;
    });
    if (atBottom) break;
  }
  await read();
  return [...rows.values()];
}

/** How many of `rows` show a bubble (the user's message, as its item or still optimistic) with exactly this text. */
export function countBubbles(rows: Array<{ ids: string[]; text: string }>, text: string): number {
  return rows.filter(
    (row) =>
      (row.ids.includes('user-bubble') || row.ids.includes('pending-bubble')) &&
      row.text.startsWith(text) &&
      bubbleText(row.text, text),
  ).length;
}

/** The same, reading the whole transcript first. */
export async function bubbles(page: Page, text: string): Promise<number> {
  return countBubbles(await transcriptRows(page), text);
}

function bubbleText(rowText: string, text: string): boolean {
  // A bubble row reads its text, then at most a delivery note ("queued: ...").
  return rowText === text || /^(queued|steered|sent|sending|from the harness)/.test(rowText.slice(text.length));
}
