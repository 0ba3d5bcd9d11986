// The console with the keyboard alone, in a real Chromium against a real daemon (sessions on the
// in-process scripted harness: Tab order, focus and keys are the console's own): Tab's first stop
// is the skip link; the new-session form is reached, a harness picked with Space, a session started
// with Enter (focus lands in the composer), a message typed and sent with Enter, a running turn
// interrupted with Esc; Up/Down move between the sessions of the sidebar and Enter opens one; a
// picker that changes the route keeps the focus; the doctor opens from its link with its heading focused. Every control Tab stops on shows a focus
// indicator (a computed outline or box shadow). No mouse event is sent. Screenshots:
// test-results/console-keyboard-*.png.
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FocusState, focused } from './a11y-page.js';
import { type A11yRig, a11yRig } from './a11y-rig.js';
import { last, turnsEnded, WAIT_MS } from './real-rig.js';

// A rig per attempt: the real tier retries a failed test once (vitest.config.ts), and the keyboard walk
// starts from a fresh page and an empty sidebar.
let rig: A11yRig;
beforeEach(async () => {
  stops.length = 0;
  rig = await a11yRig();
  await rig.open();
}, 120_000);
afterEach(async (context) => {
  if (context.task.result?.state === 'fail') await rig?.browser.screenshot('keyboard-failed');
  await rig?.dispose();
});

/** Every stop Tab made, for the focus-indicator check and to say where the focus went when a target is missed. */
const stops: FocusState[] = [];

/** Presses Tab (Shift+Tab backwards) until the focused element matches, at most `max` times. */
async function tabTo(page: Page, matches: (state: FocusState) => boolean, backwards = false, max = 60) {
  for (let step = 0; step < max; step++) {
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    const state = await focused(page);
    stops.push(state);
    if (matches(state)) return state;
  }
  throw new Error(
    `Tab never reached the control; it stopped on: ${stops
      .slice(-max)
      .map((stop) => `${stop.tag}[${stop.testId ?? ''}] ${stop.name}`)
      .join(' | ')}`,
  );
}

const sessionIdOf = (page: Page) => decodeURIComponent(/#\/session\/(.+)$/.exec(page.url())?.[1] ?? '');

async function startSession(page: Page, harness: 'codex' | 'claude-code'): Promise<string> {
  // The sidebar's "+ New session", from wherever the focus is (backwards: the sidebar comes first).
  await tabTo(page, (state) => state.name === '+ New session', true);
  await page.keyboard.press('Enter');
  await page.locator('.harness-option').first().waitFor({ timeout: WAIT_MS });
  // Focus went to the new page's heading.
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('New session');
  await page.locator(`.harness-option[data-harness="${harness}"]:not([disabled])`).waitFor({ timeout: WAIT_MS });
  const option = await tabTo(page, (state) => state.tag === 'button' && state.name.includes(harness));
  expect(option.name).toContain(harness);
  await page.keyboard.press('Space');
  expect(await page.locator(`.harness-option[data-harness="${harness}"]`).getAttribute('aria-pressed')).toBe('true');
  await tabTo(page, (state) => state.testId === 'cwd-input');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(rig.workdir);
  await tabTo(page, (state) => state.testId === 'create-session');
  await page.keyboard.press('Enter');
  await page.getByTestId('session-header').waitFor({ timeout: WAIT_MS });
  // Focus went to the composer: the user types at once.
  await page.waitForFunction(() => document.activeElement?.id === 'composer-input', undefined, { timeout: WAIT_MS });
  return sessionIdOf(page);
}

describe('console real: the keyboard alone', () => {
  it('skip link, new session, send with Enter, interrupt with Esc, the sidebar, the doctor; focus always shown', async () => {
    const { page } = rig;
    // The first Tab stop skips the sidebar; Enter on it focuses the page (the home heading).
    const skip = await tabTo(page, () => true, false, 1);
    expect(skip.name).toBe('Skip to the page');
    await rig.browser.screenshot('keyboard-skip-link');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');

    // A Claude Code session: the harness picked with Space, started with Enter.
    const first = await startSession(page, 'claude-code');
    expect(rig.harnesses['claude-code'].sessions).toHaveLength(1);
    await page.keyboard.type('Hello from the keyboard.');
    await page.keyboard.press('Enter');
    await turnsEnded(page, 1);
    await last(page.locator('[data-testid="user-bubble"]').filter({ hasText: 'Hello from the keyboard.' }));

    // A turn that keeps running until Esc interrupts it.
    rig.harnesses['claude-code'].last.hold = true;
    await page.keyboard.type('Keep going until I stop you.');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="transcript"][data-running="true"]').waitFor({ timeout: WAIT_MS });
    await rig.browser.screenshot('keyboard-running');
    await page.keyboard.press('Escape');
    await last(page.locator('[data-testid="turn-end"][data-outcome="cancelled"]'));
    await page.locator('[data-testid="transcript"][data-running="false"]').waitFor({ timeout: WAIT_MS });
    await page.locator('[data-testid="session-status"][data-status="idle"]').waitFor({ timeout: WAIT_MS });

    // A second session (Codex), then back to the first through the sidebar: Up/Down, Enter.
    const second = await startSession(page, 'codex');
    expect(second).not.toBe(first);
    await tabTo(page, (state) => state.sessionItem, true);
    for (let step = 0; step < 4; step++) {
      const at = await page.evaluate(() => document.activeElement?.getAttribute('data-session-id'));
      if (at === first) break;
      await page.keyboard.press(step < 2 ? 'ArrowDown' : 'ArrowUp');
    }
    const onItem = await page.evaluate(() => document.activeElement?.getAttribute('data-session-id'));
    expect(onItem).toBe(first);
    const item = await focused(page);
    expect(item.indicated, `focus shown on the session item (${item.indicator})`).toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForFunction((id) => window.location.hash.endsWith(encodeURIComponent(id)), first, {
      timeout: WAIT_MS,
    });
    await page.waitForFunction(() => document.activeElement?.id === 'composer-input', undefined, { timeout: WAIT_MS });
    // The first session's history is there, and the composer sends in it.
    await last(page.locator('[data-testid="user-bubble"]').filter({ hasText: 'Hello from the keyboard.' }));
    await rig.browser.screenshot('keyboard-back-to-first');

    // Conversations on disk: changing its harness picker changes the route, and the focus stays on the picker.
    await tabTo(page, (state) => state.name === 'Conversations on disk', true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Conversations on disk');
    await tabTo(page, (state) => state.tag === 'select');
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => window.location.hash === '#/conversations/claude-code', undefined, {
      timeout: WAIT_MS,
    });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('conversations-harness');

    // The doctor, from its link in the sidebar: its heading takes the focus.
    await tabTo(page, (state) => state.name === 'Doctor', true);
    await page.keyboard.press('Enter');
    await page.getByTestId('doctor').waitFor({ timeout: WAIT_MS });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Doctor');
    await last(page.locator('[data-testid="doctor-harness"][data-harness="codex"]'));
    const doctorStop = await tabTo(page, (state) => state.name === 'Check again');
    expect(doctorStop.indicated).toBe(true);
    await rig.browser.screenshot('keyboard-doctor');

    // Every control Tab stopped on showed a focus indicator.
    expect(stops.length).toBeGreaterThan(10);
    expect(
      stops.filter((stop) => !stop.indicated).map((stop) => `${stop.tag}[${stop.testId ?? ''}] ${stop.name}`),
    ).toEqual([]);
    expect(rig.browser.problems).toEqual([]);
    // Longer than one wait (WAIT_MS), so a step that never completes fails naming what it waited for.
  }, 200_000);
});
