// Debian's Chromium (/usr/bin/chromium) driven by playwright-core for the console's browser tests:
// headless, a fresh profile per launch, and every switch off that would make Chromium reach for a
// host other than the page's (background networking, component updates, sync, QUIC). Screenshots
// go to test-results/ (gitignored). The page's console errors and CSP violations are collected, so
// a test can assert that the console ran clean under its Content-Security-Policy.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.REINS_CHROMIUM ?? '/usr/bin/chromium';
const RESULTS = fileURLToPath(new URL('../../../test-results/', import.meta.url));

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and CSP violations the page reported. */
  problems: string[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** `extraArgs`: more Chromium switches (e.g. a host-resolver rule that sends a name through a test's proxy). */
export async function launchBrowser(
  viewport = { width: 1360, height: 860 },
  extraArgs: string[] = [],
): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium; .ci/run does where it is missing) or set REINS_CHROMIUM.`,
    );
  }
  const profile = await mkdtemp(join(tmpdir(), 'reins-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...extraArgs],
    viewport,
    colorScheme: 'dark',
    timeout: 60_000,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await mkdir(RESULTS, { recursive: true });
  return {
    context,
    page,
    problems,
    async screenshot(name) {
      const path = join(RESULTS, `console-${name}.png`);
      await page.screenshot({ path });
      return path;
    },
    async close() {
      await context.close().catch(() => {});
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The url `reins console` prints for a daemon: the token in the fragment. */
export function consoleUrl(port: number, token: string): string {
  return `http://127.0.0.1:${port}/#token=${token}`;
}
