// `reins console --demo` end to end: the built bin starts the pinned CLIs on the scripted model in a
// loopback-only namespace of its own (nested in the real tier's), and only the console's port comes
// out of it: a browser outside loads the console from 127.0.0.1:<port>, its WebSocket goes through
// the same door, and a real Codex session runs the demo's script (a shell command with its
// output and exit code). Ctrl+C ends everything and removes what the demo made.
import { existsSync } from 'node:fs';
import { assertHermetic } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../console/test/browser.js';
import { type RunningCli, startCli } from './cli.js';

let demo: RunningCli | undefined;
afterEach(async () => {
  if (demo && demo.child.exitCode === null) {
    demo.child.kill('SIGINT');
    await demo.done;
  }
  demo = undefined;
});

describe('reins console --demo', () => {
  it('serves the console through its one door, runs a real session, and cleans up on Ctrl+C', async () => {
    await assertHermetic();
    const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '' };
    delete env.REINS_CONSOLE_DEMO_RELAY;
    demo = startCli(['console', '--demo', '--no-open'], { env });
    await demo.waitForOutput(/Reins console \(demo\): \S+/, 180_000);
    const link = new URL(/Reins console \(demo\): (\S+)/.exec(demo.stdout())?.[1] as string);
    const workspace = new URLSearchParams(link.hash.slice(1)).get('cwd') as string;
    expect(existsSync(workspace)).toBe(true);
    const page = await fetch(`${link.origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');

    const browser = await launchBrowser();
    try {
      const { page: tab } = browser;
      await tab.goto(link.href);
      await tab.getByRole('button', { name: '+ New session' }).click();
      await tab.locator('.harness-option[data-harness="codex"]').click();
      expect(await tab.getByTestId('cwd-input').inputValue()).toBe(workspace);
      await tab.getByTestId('create-session').click();
      await tab.getByTestId('session-header').waitFor({ timeout: 120_000 });
      await tab.getByLabel('Message').fill('run the tests');
      await tab.getByLabel('Message').press('Enter');
      const command = tab
        .locator('[data-testid="tool-card"][data-tool-kind="command"][data-status="completed"]')
        .last();
      await command.waitFor({ timeout: 120_000 });
      expect(await command.getByTestId('command-output').textContent()).toContain('3 passed');
      expect(await command.getByTestId('exit-code').textContent()).toBe('exit 0');
      await tab.getByTestId('agent-text').filter({ hasText: 'All 3 tests pass' }).waitFor({ timeout: 120_000 });
      await browser.screenshot('demo');
      expect(browser.problems).toEqual([]);
    } finally {
      await browser.close();
    }

    demo.child.kill('SIGINT');
    const result = await demo.done;
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(workspace)).toBe(false);
    await expect(fetch(`${link.origin}/`)).rejects.toThrow();
  }, 400_000);
});
