import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { silentLogger, startDaemon } from '../../daemon/src/index.js';
import { fakeCodexOptions } from '../../daemon/test/helpers.js';
import { consoleUrl, launchBrowser } from './browser.js';

it('scratch', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'scratch-'));
  const daemon = await startDaemon({
    home: join(dir, 'home'),
    harnesses: ['codex'],
    logger: silentLogger,
    harnessOptions: { codex: fakeCodexOptions(process.env.T ?? 'file-edit') },
  });
  const browser = await launchBrowser();
  try {
    const { page } = browser;
    await page.goto(consoleUrl(daemon.port, daemon.token));
    await page.waitForTimeout(1500);
    await browser.screenshot('scratch-home');
    await page.getByRole('button', { name: '+ New session' }).click();
    await page.getByTestId('cwd-input').fill(dir);
    await page.waitForTimeout(1500);
    await browser.screenshot('scratch-new');
    await page.getByTestId('create-session').click();
    await page.getByLabel('Message').waitFor();
    await page.getByLabel('Message').fill('Write NOTES.md please');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(4000);
    await browser.screenshot('scratch-session');
    console.log('problems', browser.problems);
  } finally {
    await browser.close();
    await daemon.close();
  }
}, 120_000);
