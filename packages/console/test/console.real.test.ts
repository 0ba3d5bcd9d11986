// The console in a real Chromium against a real daemon running the pinned Codex and Claude Code on
// the scripted model, inside the loopback-only namespace. Each test drives the console as a user
// does (clicks, typing, Enter, Esc) and checks what a user sees, and what reached the model where
// the screen cannot prove it (the same conversation after a restart, the switched model).
// Screenshots go to test-results/console-*.png.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthProbe, HarnessAuth, LoginCeremony } from '@reins/core';
import { silentLogger, startDaemon } from '@reins/daemon';
import { reply } from '@reins/testkit';
import type { WebSocket } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedHarness } from '../../daemon/test/scripted-harness.js';
import { consoleUrl } from './browser.js';
import {
  ALTERNATE_MODEL,
  bubbles,
  type ConsoleRig,
  consoleRig,
  countBubbles,
  last,
  send,
  startSession,
  transcriptRows,
  turnsEnded,
  WAIT_MS,
} from './real-rig.js';

const LONG = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');

let rig: ConsoleRig;
beforeAll(async () => {
  rig = await consoleRig();
  await rig.open();
}, 180_000);
afterEach(async (context) => {
  // What the page showed when a test failed, to see why.
  if (context.task.result?.state === 'fail') await rig?.browser.screenshot(`failed-${context.task.name.slice(0, 40)}`);
});
afterAll(async () => {
  await rig?.dispose();
});

describe('console real: the doctor', () => {
  it('shows both pinned harnesses found, healthy, with their versions, and the daemon', async () => {
    const { page } = rig;
    await page.locator('.sidebar-nav').getByRole('button', { name: 'Doctor' }).click();
    for (const id of ['codex', 'claude-code']) {
      const report = await last(page.locator(`[data-testid="doctor-harness"][data-harness="${id}"]`));
      expect(await report.locator('.health').textContent()).toBe('ready');
      expect(await report.textContent()).toMatch(/\d+\.\d+\.\d+/);
    }
    expect(await page.getByTestId('reins-version').textContent()).toMatch(/^\d+\.\d+\.\d+/);
    await rig.browser.screenshot('doctor');
    // The capability matrix with its three layers, from harness/capabilities.
    const codex = page.locator('[data-testid="doctor-harness"][data-harness="codex"]');
    await codex.getByRole('button', { name: 'Capabilities and sign-in' }).click();
    const matrix = await last(codex.getByTestId('capabilities'));
    const resume = matrix.locator('tr', { hasText: 'resume' }).first();
    expect(await resume.locator('td.layer').first().textContent()).toMatch(/^(yes|no|unknown)/);
    expect(await matrix.locator('tbody tr').count()).toBeGreaterThanOrEqual(20);
    // Nothing the console did broke its own Content-Security-Policy or threw.
    expect(rig.browser.problems).toEqual([]);
  });
});

describe('console real: Codex', () => {
  it('create, stream, command, diff, model switch, reload, and a daemon restart that the next send continues', async () => {
    const { page, server } = rig;
    const workdir = rig.workdirs.codex;
    const sessionId = await startSession(page, 'codex', workdir);

    // Text streams in: the optimistic bubble shows at once, the agent text grows while it streams.
    server.enqueue(reply().text(`Hello from the console. ${LONG}`).delayMs(120));
    await send(page, 'Say hello.');
    await last(
      page.locator('[data-testid="pending-bubble"], [data-testid="user-bubble"]').filter({ hasText: 'Say hello.' }),
      5_000,
    );
    await last(page.locator('[data-testid="agent-text"][data-streaming="true"]'));
    await turnsEnded(page, 1);
    expect(await (await last(page.getByTestId('agent-text'))).textContent()).toContain('word59');
    expect(await bubbles(page, 'Say hello.')).toBe(1);

    // A command: its card shows the output and the exit code.
    server.enqueue(reply().shell('echo console-check-ok'), reply().text('The check passed.'));
    await send(page, 'Run the check.');
    const command = await last(
      page.locator('[data-testid="tool-card"][data-tool-kind="command"][data-status="completed"]'),
    );
    expect(await command.getByTestId('command-output').textContent()).toContain('console-check-ok');
    expect(await command.getByTestId('exit-code').textContent()).toBe('exit 0');
    await turnsEnded(page, 2);

    // A file change: a readable diff of what was written.
    const notes = join(workdir, 'NOTES.md');
    server.enqueue(reply().writeFile(notes, '# Notes\n\nWritten from the console.\n'), reply().text('Wrote NOTES.md.'));
    await send(page, 'Write NOTES.md.');
    const diff = await last(page.locator(`[data-testid="file-diff"][data-path="${notes}"]`));
    expect(await diff.textContent()).toContain('Written from the console.');
    await turnsEnded(page, 3);
    expect(existsSync(notes)).toBe(true);
    await rig.browser.screenshot('codex-session');

    // Switch the model: the console says how it applied, and the next turn uses it.
    await page.getByTestId('model-input').fill(ALTERNATE_MODEL);
    await page.getByTestId('model-input').press('Enter');
    const note = await last(page.getByTestId('note').filter({ hasText: `Model set to ${ALTERNATE_MODEL}` }));
    expect(await note.textContent()).toMatch(/applied live|applies from the next turn|applied by restarting/);
    server.enqueue(reply().text('Now on the other model.'));
    await send(page, 'Which model is this?');
    await turnsEnded(page, 4);
    expect(server.requests.filter((request) => request.scripted).at(-1)?.model).toBe(ALTERNATE_MODEL);

    // Reload: the whole history comes back from the daemon, each message once, without native frames.
    const received: string[] = [];
    const watch = (socket: WebSocket) =>
      socket.on('framereceived', (frame) => received.push(typeof frame.payload === 'string' ? frame.payload : ''));
    page.on('websocket', watch);
    await page.reload();
    await turnsEnded(page, 4);
    page.off('websocket', watch);
    expect(received.some((text) => text.includes('"method":"session/event'))).toBe(true);
    expect(received.filter((text) => text.includes('"native":'))).toEqual([]);
    // The raw-frames panel fetches them: a Codex frame shows beside its event.
    await page.getByTestId('debug-toggle').click();
    const frame = await last(page.getByTestId('frame').filter({ hasText: 'codex.app-server' }));
    await frame.locator('summary').click();
    expect(await frame.getByTestId('native-frame').textContent()).toContain('"method"');
    await page.getByTestId('debug-toggle').click();
    const rows = await transcriptRows(page);
    for (const text of ['Say hello.', 'Run the check.', 'Write NOTES.md.', 'Which model is this?']) {
      expect(countBubbles(rows, text), text).toBe(1);
    }
    expect(rows.filter((row) => row.ids.includes('pending-bubble'))).toEqual([]);
    expect(rows.filter((row) => row.ids.includes('tool-card') && row.text.includes('console-check-ok'))).toHaveLength(
      1,
    );

    // Restart the daemon: its token changes, so the page says so; the new link shows the session
    // dormant, and the next send resumes the same conversation. First the reloaded page finishes
    // asking for the model list: a daemon closing while Codex's model probe runs waited for it
    // (up to the harness's request deadline, 60 s here) on a loaded machine.
    await page.locator(`datalist#models-${sessionId}`).waitFor({ state: 'attached', timeout: WAIT_MS });
    await rig.restartDaemon();
    await page.getByTestId('connection-refused').waitFor({ timeout: WAIT_MS });
    await rig.open();
    const item = await last(page.locator(`.session-item[data-session-id="${sessionId}"]`));
    expect(await item.getAttribute('data-status')).toBe('dormant');
    await item.click();
    await page.locator('[data-testid="session-status"][data-status="dormant"]').waitFor({ timeout: WAIT_MS });
    server.enqueue(reply().text('You first asked me to say hello.'));
    await send(page, 'What did I ask first?');
    await turnsEnded(page, 5);
    const body = JSON.stringify(server.requests.filter((request) => request.scripted).at(-1)?.body);
    expect(body).toContain('Say hello.');
    expect(body).toContain('What did I ask first?');
    expect(await bubbles(page, 'Say hello.')).toBe(1);
    await rig.browser.screenshot('codex-after-restart');
    expect(rig.browser.problems.filter((problem) => !/WebSocket|ERR_CONNECTION_REFUSED|403/.test(problem))).toEqual([]);
  }, 600_000);
});

describe('console real: Claude Code', () => {
  it('posture ask: approve one permission, deny another; interrupt a long turn with Esc', async () => {
    const { page, server } = rig;
    const workdir = rig.workdirs['claude-code'];
    await startSession(page, 'claude-code', workdir, { posture: 'ask' });

    const allowed = join(workdir, 'allowed.txt');
    server.enqueue(reply().writeFile(allowed, 'allowed\n'), reply().text('Written.'));
    await send(page, 'Write allowed.txt');
    const first = await last(page.locator('[data-testid="permission"][data-resolved="pending"]'));
    expect(await first.textContent()).toContain('allowed.txt');
    await rig.browser.screenshot('claude-permission');
    // The harness's own options when it offers them (Claude Code: allow once, for the session, deny).
    await first.locator('button.approve').first().click();
    await last(page.locator('[data-testid="permission"][data-resolved="allow"]'));
    await turnsEnded(page, 1);
    expect(existsSync(allowed)).toBe(true);

    const denied = join(workdir, 'denied.txt');
    server.enqueue(reply().writeFile(denied, 'denied\n'), reply().text('Understood, not writing.'));
    await send(page, 'Write denied.txt');
    const second = await last(page.locator('[data-testid="permission"][data-resolved="pending"]'));
    await second.locator('button.deny').first().click();
    await last(page.locator('[data-testid="permission"][data-resolved="deny"]'));
    await last(page.locator('[data-testid="tool-card"][data-tool-kind="file_change"][data-status="declined"]'));
    await turnsEnded(page, 2);
    expect(existsSync(denied)).toBe(false);

    // A long turn, interrupted with Esc: it ends cancelled and the session takes the next turn.
    server.enqueue(reply().text(LONG).delayMs(400), reply().text('Back again.'));
    await send(page, 'Talk for a while.');
    await last(page.locator('[data-testid="agent-text"][data-streaming="true"]'));
    await page.keyboard.press('Escape');
    await last(page.locator('[data-testid="turn-end"][data-outcome="cancelled"]'));
    await send(page, 'Are you there?');
    await turnsEnded(page, 4);
    expect(await (await last(page.getByTestId('agent-text'))).textContent()).toContain('Back again.');
    await rig.browser.screenshot('claude-session');
    expect(rig.browser.problems.filter((problem) => !/WebSocket|ERR_CONNECTION_REFUSED|403/.test(problem))).toEqual([]);
  }, 600_000);
});

/** A harness whose user signs in at its page: its own status flips; only the daemon's re-probe sees it. */
class SignInHarness extends ScriptedHarness {
  signedIn = false;
  finish: (outcome: { ok: boolean }) => void = () => {};
  readonly auth: HarnessAuth = {
    command: 'fake-harness login',
    status: async (): Promise<AuthProbe> =>
      this.signedIn
        ? { status: 'signed_in', account: 'dev@example.test' }
        : { status: 'signed_out', methods: [{ id: 'device', name: 'Device code' }] },
    login: async (): Promise<LoginCeremony> => ({
      url: `http://127.0.0.1:9/device`,
      userCode: 'WXYZ-1234',
      instructions: 'Open the page and enter the code.',
      completed: new Promise((resolve) => {
        this.finish = resolve;
      }),
      cancel: async () => this.finish({ ok: false }),
    }),
  };
}

describe('console real: sign-in', () => {
  it('a signed-out harness offers Sign in, shows the code, opens its page, and flips on harness/authChanged', async () => {
    const { page, context } = rig.browser;
    const home = await mkdtemp(join(tmpdir(), 'reins-console-signin-'));
    const harness = new SignInHarness('codex');
    const daemon = await startDaemon({
      home,
      harnesses: ['codex'],
      logger: silentLogger,
      authPollMs: 50,
      createHarness: async () => harness,
    });
    try {
      await page.goto(consoleUrl(daemon.port, daemon.token));
      await page.locator('.sidebar-nav').getByRole('button', { name: 'Doctor' }).click();
      const report = await last(page.locator('[data-testid="doctor-harness"][data-harness="codex"]'));
      expect(await report.getByTestId('doctor-auth').textContent()).toContain('signed out');
      // The harness's page opens in a new tab (nothing listens at 127.0.0.1:9: the request is what counts).
      const opened = context.waitForEvent('request', (request) =>
        request.url().startsWith('http://127.0.0.1:9/device'),
      );
      await report.getByTestId('sign-in').click();
      const ceremony = await last(report.getByTestId('sign-in-ceremony'));
      expect(await ceremony.getByTestId('sign-in-code').textContent()).toBe('WXYZ-1234');
      expect((await opened).url()).toBe('http://127.0.0.1:9/device');
      await rig.browser.screenshot('sign-in');
      // The user signs in at the harness's page; the daemon's watch sees it and tells every client.
      harness.signedIn = true;
      harness.finish({ ok: true });
      // authChanged flips the page, which reads harness/list again: the harness's own state, signed in.
      await report
        .getByTestId('doctor-auth')
        .filter({ hasText: 'signed in as dev@example.test' })
        .waitFor({ timeout: WAIT_MS });
      expect(await report.getByTestId('sign-in').count()).toBe(0);
      await rig.browser.screenshot('signed-in');
    } finally {
      for (const extra of context.pages().slice(1)) await extra.close();
      await daemon.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});
