// The console's colours as Chromium renders them: on each page (home, new session, a session with
// every kind of row and the raw-frames panel, the doctor, conversations on disk), in the dark scheme
// and the light one, every visible text reaches WCAG AA contrast against its effective background
// (test/a11y-page.ts). The unit test (src/ui/theme-contrast.test.ts) checks the pairs the CSS makes;
// this one sees the nesting the CSS does not say. Screenshots: test-results/console-a11y-*.png.
// Also a turn's checkpoint card in a git work tree (its diff, Undo through session/revert, a refusal),
// checked here because this rig's scripted session edits a file between real git snapshots.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTestRepo } from '../../harnesses/src/runtime/checkpoints/test-repo.js';
import { contrastFailures } from './a11y-page.js';
import { type A11yRig, a11yRig, startByClicks } from './a11y-rig.js';
import { last, send, turnsEnded, WAIT_MS } from './real-rig.js';

let rig: A11yRig;
beforeAll(async () => {
  rig = await a11yRig();
  await rig.open();
}, 120_000);
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await rig?.browser.screenshot(`a11y-failed-${context.task.name.slice(0, 30)}`);
});
afterAll(async () => {
  await rig?.dispose();
});

async function visit(hash: string, ready: string): Promise<void> {
  await rig.page.evaluate((target) => {
    window.location.hash = target;
  }, hash);
  await rig.page.locator(ready).first().waitFor({ timeout: WAIT_MS });
}

describe('console real: contrast as rendered', () => {
  let sessionHash = '';

  it('fills a session with every kind of row', async () => {
    const { page } = rig;
    const sessionId = await startByClicks(page, 'codex', rig.workdir);
    sessionHash = `#/session/${encodeURIComponent(sessionId)}`;
    await send(page, 'Run the tools and warn me.');
    await turnsEnded(page, 1);
    await last(page.locator('[data-testid="tool-card"][data-tool-kind="command"]'));
    await last(page.getByTestId('file-diff'));
    await send(page, 'Now ask me.');
    await last(page.locator('[data-testid="permission"][data-resolved="pending"]'));
    await turnsEnded(page, 2);
  });

  for (const scheme of ['dark', 'light'] as const) {
    it(`${scheme}: every page's text reaches 4.5:1 (3:1 large) on its background`, async () => {
      const { page } = rig;
      await page.emulateMedia({ colorScheme: scheme });
      const pages: Array<[string, string, string]> = [
        ['home', '#/', '.welcome'],
        ['new', '#/new', '.harness-option'],
        ['session', sessionHash, '[data-testid="tool-card"]'],
        ['doctor', '#/doctor', '[data-testid="doctor-harness"]'],
        ['conversations', '#/conversations', '.page h2'],
      ];
      const report: string[] = [];
      let checked = 0;
      for (const [name, hash, ready] of pages) {
        await visit(hash, ready);
        // Let the pages' daemon calls settle (their answers or errors are text too).
        await page.waitForTimeout(300);
        const result = await contrastFailures(page);
        checked += result.checked;
        for (const failure of result.failures) {
          report.push(
            `${name}: ${failure.element} "${failure.text}" ${failure.color} on ${failure.background} = ${failure.ratio} < ${failure.needed}`,
          );
        }
        await rig.browser.screenshot(`a11y-${scheme}-${name}`);
        if (name === 'session') {
          // The rows above (the command card with its output) come into the DOM when scrolled to.
          await page.evaluate(() => {
            const scroller = document.querySelector('.scroller');
            if (scroller) scroller.scrollTop = 0;
          });
          await page.getByTestId('command-output').first().waitFor({ timeout: WAIT_MS });
          const top = await contrastFailures(page);
          checked += top.checked;
          for (const failure of top.failures) {
            report.push(
              `${name} (top): ${failure.element} "${failure.text}" ${failure.color} on ${failure.background} = ${failure.ratio} < ${failure.needed}`,
            );
          }
          await rig.browser.screenshot(`a11y-${scheme}-session-top`);
          // The raw-frames panel is text too.
          await page.getByTestId('debug-toggle').click();
          await page.getByTestId('frame').first().waitFor({ timeout: WAIT_MS });
          const panel = await contrastFailures(page);
          checked += panel.checked;
          for (const failure of panel.failures) {
            report.push(
              `${name}+frames: ${failure.element} "${failure.text}" ${failure.color} on ${failure.background} = ${failure.ratio} < ${failure.needed}`,
            );
          }
          await rig.browser.screenshot(`a11y-${scheme}-frames`);
          await page.getByTestId('debug-toggle').click();
        }
      }
      expect(checked).toBeGreaterThan(100);
      expect(report).toEqual([]);
    });
  }

  it('the check sees a low contrast when there is one', async () => {
    const { page } = rig;
    await page.emulateMedia({ colorScheme: 'dark' });
    await visit('#/doctor', '[data-testid="doctor-harness"]');
    await page.evaluate(() => document.documentElement.style.setProperty('--muted', '#3a4350'));
    try {
      const { failures } = await contrastFailures(page);
      expect(failures.some((failure) => failure.color === '#3a4350')).toBe(true);
    } finally {
      await page.evaluate(() => document.documentElement.style.removeProperty('--muted'));
    }
    expect(rig.browser.problems).toEqual([]);
  });
});

describe('console real: a checkpointed turn', () => {
  it('shows the files the turn changed with their diff, and Undo puts them back (or says why not)', async () => {
    const { page } = rig;
    const repo = makeTestRepo();
    try {
      await page.emulateMedia({ colorScheme: 'dark' });
      await startByClicks(page, 'codex', repo.dir);
      const user = repo.userState();
      await send(page, 'Please edit a.txt');
      const card = await last(page.getByTestId('checkpoint'));
      expect(await card.getByTestId('checkpoint-summary').textContent()).toBe('1 file: a.txt');
      await card.getByRole('button', { name: /Changes on disk/ }).click();
      const file = await last(card.getByTestId('file-diff'));
      expect(await file.getAttribute('data-path')).toBe('a.txt');
      expect(await file.locator('tr.add').allTextContents()).toEqual(['2+edited in turn_1']);
      const { failures } = await contrastFailures(page);
      expect(failures.filter((failure) => /checkpoint|diff|button/.test(failure.element))).toEqual([]);

      await card.getByTestId('checkpoint-undo').click();
      const note = await last(page.getByTestId('note'));
      expect(await note.textContent()).toBe(
        'Undid turn_1: put back a.txt; the conversation is unchanged (files only).',
      );
      await card.getByTestId('checkpoint-reverted').waitFor({ timeout: WAIT_MS });
      expect(repo.read('a.txt')).toBe('alpha\n');
      const after = repo.userState();
      expect([after.head, after.index, after.stash]).toEqual([user.head, user.index, user.stash]);

      // A file the user changed since: the daemon refuses, the console says why, the file stays.
      await send(page, 'Another edit');
      await turnsEnded(page, 2);
      const second = page.locator('[data-testid="checkpoint"][data-turn-id="turn_2"]');
      await second.waitFor({ timeout: WAIT_MS });
      repo.write('a.txt', 'the user kept working\n');
      await second.getByTestId('checkpoint-undo').click();
      await page.locator('.note-row.error', { hasText: 'would overwrite' }).waitFor({ timeout: WAIT_MS });
      expect(await page.locator('.note-row.error').last().textContent()).toMatch(
        /^Undo failed: invalid_input: Reverting turn_2 would overwrite changes made since .* to a\.txt/,
      );
      expect(repo.read('a.txt')).toBe('the user kept working\n');
      expect(await second.getByTestId('checkpoint-undo').isEnabled()).toBe(true);
      expect(rig.browser.problems).toEqual([]);
    } finally {
      repo.remove();
    }
  });
});
