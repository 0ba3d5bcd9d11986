// The console in a narrow window, in a real Chromium against a real daemon (sessions on the
// in-process scripted harness: the layout is the console's own), at a phone's viewport (375x740)
// and a small laptop's (1024x640): on every page the page itself never scrolls sideways and nothing
// sticks out of the window except inside a box that scrolls or clips it; on the phone the sidebar is
// a drawer behind the menu button that still reaches every session; the composer and the transcript
// keep their room; tool cards and diffs with long commands, paths and lines wrap or scroll inside
// themselves. Screenshots: test-results/console-narrow-*.png.
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type A11yRig, a11yRig, startByClicks } from './a11y-rig.js';
import { last, send, turnsEnded, WAIT_MS } from './real-rig.js';

const VIEWPORTS = [
  { name: 'phone', width: 375, height: 740, drawer: true },
  { name: 'laptop', width: 1024, height: 640, drawer: false },
] as const;

let rig: A11yRig;
const sessions: string[] = [];
beforeAll(async () => {
  rig = await a11yRig({ width: 375, height: 740 });
  await rig.open();
}, 120_000);
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await rig?.browser.screenshot(`narrow-failed-${context.task.name.slice(0, 20)}`);
});
afterAll(async () => {
  await rig?.dispose();
});

/**
 * What breaks the layout: the page scrolling sideways, and each visible element that reaches past
 * the window's left or right edge with no ancestor that scrolls or clips it inside the window.
 */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > width + 1) {
      problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    }
    const contained = (element: Element) => {
      for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
        const overflow = getComputedStyle(node).overflowX;
        if (overflow === 'visible') continue;
        const box = node.getBoundingClientRect();
        if (box.left >= -1 && box.right <= width + 1) return true;
      }
      return false;
    };
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      const style = getComputedStyle(element);
      if (style.visibility !== 'visible' || style.display === 'none') continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (box.right <= width + 1 && box.left >= -1) continue;
      if (contained(element)) continue;
      problems.push(
        `${element.tagName.toLowerCase()}.${Array.from(element.classList).join('.')} spans ${Math.round(box.left)}..${Math.round(box.right)} of ${width}`,
      );
      if (problems.length > 40) break;
    }
    return problems;
  });
}

async function visit(page: Page, hash: string, ready: string): Promise<void> {
  await page.evaluate((target) => {
    window.location.hash = target;
  }, hash);
  await page.locator(ready).first().waitFor({ timeout: WAIT_MS });
}

const inside = (box: { x: number; width: number } | null, width: number) =>
  box !== null && box.x >= -1 && box.x + box.width <= width + 1;

describe('console real: a narrow window', () => {
  it('three sessions with long commands, paths and diffs, started at a phone size', async () => {
    const { page } = rig;
    for (const harness of ['codex', 'claude-code', 'codex'] as const) {
      sessions.push(await startByClicks(page, harness, rig.workdir));
      await send(page, 'Run the tools, then ask.');
      await last(page.locator('[data-testid="permission"][data-resolved="pending"]'));
      await turnsEnded(page, 1);
    }
    expect(sessions).toHaveLength(3);
  });

  for (const viewport of VIEWPORTS) {
    it(`${viewport.name} (${viewport.width}x${viewport.height}): no page scrolls sideways; cards and diffs keep inside`, async () => {
      const { page } = rig;
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      const report: string[] = [];
      const pages: Array<[string, string, string]> = [
        ['home', '#/', '.welcome'],
        ['new', '#/new', '.harness-option'],
        ['doctor', '#/doctor', '[data-testid="doctor-harness"]'],
        ['conversations', '#/conversations', '.page h2'],
        ['session', `#/session/${encodeURIComponent(sessions[0] as string)}`, '[data-testid="tool-card"]'],
      ];
      for (const [name, hash, ready] of pages) {
        await visit(page, hash, ready);
        if (name === 'doctor') {
          // The capability matrix: the doctor's widest table.
          await page.getByRole('button', { name: 'Capabilities and sign-in' }).first().click();
          await page.waitForTimeout(300);
        }
        for (const problem of await layoutProblems(page)) report.push(`${name}: ${problem}`);
        await rig.browser.screenshot(`narrow-${viewport.name}-${name}`);
      }

      // The transcript, top to bottom: every card, its output and its diff inside the window.
      const scroller = page.locator('.scroller');
      await scroller.evaluate((element) => {
        element.scrollTop = 0;
      });
      await page.getByTestId('command-output').first().waitFor({ timeout: WAIT_MS });
      for (const problem of await layoutProblems(page)) report.push(`session (top): ${problem}`);
      await rig.browser.screenshot(`narrow-${viewport.name}-tool-card`);
      const output = page.getByTestId('command-output').first();
      const wraps = await output.evaluate((element) => {
        const style = getComputedStyle(element);
        return element.scrollWidth <= element.clientWidth + 1 || style.overflowX === 'auto';
      });
      expect(wraps, 'the command output wraps or scrolls inside its card').toBe(true);
      expect(inside(await page.locator('[data-testid="tool-card"]').first().boundingBox(), viewport.width)).toBe(true);
      await page.getByTestId('file-diff').first().scrollIntoViewIfNeeded();
      expect(inside(await page.getByTestId('file-diff').first().boundingBox(), viewport.width)).toBe(true);
      for (const problem of await layoutProblems(page)) report.push(`session (diff): ${problem}`);
      await rig.browser.screenshot(`narrow-${viewport.name}-diff`);
      // The raw-frames panel lies over the transcript at these widths, inside the window.
      await page.getByTestId('debug-toggle').click();
      await page.getByTestId('frame').first().waitFor({ timeout: WAIT_MS });
      expect(inside(await page.getByTestId('debug-panel').boundingBox(), viewport.width)).toBe(true);
      for (const problem of await layoutProblems(page)) report.push(`session (raw frames): ${problem}`);
      await rig.browser.screenshot(`narrow-${viewport.name}-frames`);
      await page.getByRole('button', { name: 'Close the raw frames' }).click();
      expect(report).toEqual([]);

      // The transcript keeps its room beside the header and the composer; the composer is whole.
      const room = await scroller.evaluate((element) => element.clientHeight);
      expect(room, 'transcript height').toBeGreaterThanOrEqual(viewport.height * 0.35);
      const composer = await page.getByLabel('Message').boundingBox();
      expect(inside(composer, viewport.width)).toBe(true);
      expect((composer?.y ?? 0) + (composer?.height ?? 0)).toBeLessThanOrEqual(viewport.height);
      const sendButton = await page.getByTestId('send').boundingBox();
      expect(inside(sendButton, viewport.width)).toBe(true);
      expect((sendButton?.y ?? 0) + (sendButton?.height ?? 0)).toBeLessThanOrEqual(viewport.height);
    });

    it(`${viewport.name}: the sidebar ${viewport.drawer ? 'is a drawer behind the menu button and' : 'stays beside the page and'} reaches every session`, async () => {
      const { page } = rig;
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await visit(page, `#/session/${encodeURIComponent(sessions[0] as string)}`, '[data-testid="session-header"]');
      const sidebar = page.locator('.sidebar');
      const menu = page.locator('main .menu-button');
      if (viewport.drawer) {
        // Closed: out of sight and out of the Tab order; the menu button shows.
        await page.waitForFunction(
          () => getComputedStyle(document.querySelector('.sidebar') as Element).visibility === 'hidden',
        );
        expect(await menu.isVisible()).toBe(true);
        await menu.click();
        await page.waitForFunction(() => {
          const box = document.querySelector('.sidebar')?.getBoundingClientRect();
          return box !== undefined && box.left >= 0;
        });
        expect(inside(await sidebar.boundingBox(), viewport.width)).toBe(true);
        // The drawer took the focus (its close button).
        expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
          'Close the session list',
        );
        await rig.browser.screenshot(`narrow-${viewport.name}-drawer`);
      } else {
        expect(await menu.isVisible()).toBe(false);
        expect(inside(await sidebar.boundingBox(), viewport.width)).toBe(true);
      }
      // Every session is in the list and can be brought into view.
      for (const id of sessions) {
        const item = page.locator(`.session-item[data-session-id="${id}"]`);
        await item.scrollIntoViewIfNeeded();
        expect(await item.isVisible(), id).toBe(true);
        expect(inside(await item.boundingBox(), viewport.width)).toBe(true);
      }
      // Opening one from the list shows it (and closes the drawer).
      const target = sessions[2] as string;
      await page.locator(`.session-item[data-session-id="${target}"]`).click();
      await page.waitForFunction((id) => window.location.hash.endsWith(encodeURIComponent(id)), target);
      if (viewport.drawer) {
        await page.waitForFunction(
          () => getComputedStyle(document.querySelector('.sidebar') as Element).visibility === 'hidden',
        );
        // Esc closes an opened drawer too, and the focus goes back to the menu button.
        await menu.click();
        await page.waitForFunction(
          () => document.activeElement?.getAttribute('aria-label') === 'Close the session list',
        );
        await page.keyboard.press('Escape');
        await page.waitForFunction(
          () => document.activeElement?.getAttribute('aria-label') === 'Open the session list',
        );
        await page.waitForFunction(
          () => getComputedStyle(document.querySelector('.sidebar') as Element).visibility === 'hidden',
        );
      }
      // And the composer sends in it at this size.
      const message = `A message from a ${viewport.name}-sized window.`;
      await send(page, message);
      await turnsEnded(page, viewport.drawer ? 2 : 3);
      await last(page.locator('[data-testid="user-bubble"]').filter({ hasText: message }));
      for (const problem of await layoutProblems(page)) expect.fail(`after sending: ${problem}`);
      await rig.browser.screenshot(`narrow-${viewport.name}-sent`);
      expect(rig.browser.problems).toEqual([]);
    });
  }

  it('the layout check sees a box that sticks out of the window', async () => {
    const { page } = rig;
    await page.setViewportSize({ width: 375, height: 740 });
    await visit(page, '#/', '.welcome');
    // The drawer slides away after the resize from the laptop's width first.
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('.sidebar') as Element).visibility === 'hidden',
    );
    expect(await layoutProblems(page)).toEqual([]);
    await page.evaluate(() => {
      const wide = document.createElement('div');
      wide.className = 'too-wide';
      wide.style.width = '800px';
      wide.textContent = 'wide';
      document.querySelector('main')?.append(wide);
    });
    try {
      const problems = await layoutProblems(page);
      expect(problems.some((problem) => problem.startsWith('the page scrolls sideways'))).toBe(true);
      expect(
        problems.some((problem) => problem.startsWith('div.too-wide')),
        problems.join('; '),
      ).toBe(true);
    } finally {
      await page.evaluate(() => document.querySelector('.too-wide')?.remove());
    }
  });
});
