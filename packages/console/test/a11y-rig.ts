// The rig of the console's accessibility tests (a11y, keyboard, narrow): a real daemon serving the
// built console, whose sessions run on the daemon tests' in-process scripted harness (ids codex and
// claude-code; harness/list still probes the pinned CLIs, so the picker and the doctor are real),
// and Debian's Chromium. What these tests check (contrast, focus, layout) is the
// console's own and does not depend on a CLI; the scripted sessions make every kind of row on
// demand: a message with "tools" in it gets a command card (a long command, long output, exit 0)
// and a file change (a long path, a diff with long lines), "ask" a pending permission request,
// "warn" a notice, "edit" appends a line to a.txt in the cwd during the turn with real checkpoints
// (the turn's git snapshots, its checkpoint event, diff and files-only revert), and `hold` keeps a
// turn running until Esc interrupts it.
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  Discovery,
  HarnessId,
  RevertOptions,
  RevertResult,
  SendOptions,
  SendResult,
  SessionDiff,
  SessionSpec,
  TurnInput,
} from '@reins/core';
import { type Daemon, type DaemonOptions, silentLogger, startDaemon } from '@reins/daemon';
import {
  assertHermetic,
  harnessBinary,
  harnessLaunch,
  makeTempHome,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import type { Page } from 'playwright-core';
import { ScriptedHarness, ScriptedSession } from '../../daemon/test/scripted-harness.js';
import { TurnCheckpoints } from '../../harnesses/src/runtime/checkpoints/turn-checkpoints.js';
import { type Browser, consoleUrl, launchBrowser } from './browser.js';
import { WAIT_MS } from './real-rig.js';

const BUILT_CONSOLE = fileURLToPath(new URL('../dist/app/index.html', import.meta.url));

export const LONG_COMMAND = `npx vitest run --project unit packages/console/src/model/${'very-long-segment/'.repeat(8)}transcript.test.ts --reporter=verbose`;
const LONG_OUTPUT = Array.from(
  { length: 12 },
  (_, line) => `line ${line}: ${'output-without-any-break-'.repeat(line % 3 === 0 ? 12 : 2)}end`,
).join('\n');
export const LONG_PATH = `/work/a/${'deeply-nested-folder/'.repeat(6)}notes-with-a-long-name.md`;
const DIFF = [
  '@@ -1,3 +1,4 @@',
  ' # Notes',
  `-${'the old line that goes on and on '.repeat(8)}`,
  `+${'the new line that goes on and on without a break '.repeat(8)}`,
  `+${'x'.repeat(400)}`,
  ' end',
].join('\n');

class RichSession extends ScriptedSession {
  private tools = 0;
  private readonly checkpoints = new TurnCheckpoints({
    harness: this.harness,
    sessionId: this.id,
    cwd: this.spec.cwd,
    emit: (payload, turnId) => this.stream.emit(payload, turnId ? { turnId } : { background: true }),
  });

  override async send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    const text = typeof input === 'string' ? input : input.text;
    if (/edit/.test(text)) return this.editTurn(input, options);
    const result = await super.send(input, options);
    // Emitted now, inside the turn: the scripted answer and the turn's end come on the next tick.
    if (/tools/.test(text)) this.emitTools();
    if (/warn/.test(text)) this.stream.emit({ type: 'notice', kind: 'warning', message: 'A scripted warning.' });
    if (/ask/.test(text)) this.requestPermission(`ask-${++this.tools}`);
    return result;
  }

  /** A turn that edits a.txt between its before and after snapshots, as a harness's shell command would. */
  private async editTurn(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    const held = this.hold;
    this.hold = true;
    const result = await super.send(input, options);
    this.hold = held;
    await this.checkpoints.beforeTurn(result.turnId);
    await appendFile(join(this.spec.cwd, 'a.txt'), `edited in ${result.turnId}\n`);
    this.release();
    this.checkpoints.afterTurn(result.turnId);
    return result;
  }

  diff(turnId?: string): Promise<SessionDiff> {
    return this.checkpoints.diff(turnId);
  }

  revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    return this.checkpoints.revert(turnId, options, async () => 'unchanged');
  }

  // As the real harnesses do after a cancelled turn: the session is idle again (the daemon tests'
  // scripted session only ends the turn).
  override async interrupt(): Promise<void> {
    const running = this.stream.activeTurnId !== null;
    await super.interrupt();
    if (running) this.stream.emit({ type: 'session.status', status: 'idle' });
  }

  private emitTools(): void {
    const id = `tool-${++this.tools}`;
    const tool = { kind: 'command' as const, name: 'exec_command' };
    const input = { command: LONG_COMMAND };
    this.stream.emit({ type: 'item.started', item: { kind: 'tool_call', id, status: 'running', tool, input } });
    this.stream.emit({
      type: 'item.completed',
      item: { kind: 'tool_call', id, status: 'completed', tool, input, output: { text: LONG_OUTPUT }, exitCode: 0 },
    });
    this.stream.emit({
      type: 'item.completed',
      item: {
        kind: 'tool_call',
        id: `${id}-patch`,
        status: 'completed',
        tool: { kind: 'file_change', name: 'apply_patch' },
        input: {},
        changes: [{ path: LONG_PATH, kind: 'update', diff: DIFF }],
      },
    });
  }
}

class RichHarness extends ScriptedHarness {
  // Found, so the new-session page offers it (a harness not found is a disabled option).
  override async discover(): Promise<Discovery> {
    const binary = { path: `/opt/scripted/${this.id}`, version: '1.0.0', sha256: '0'.repeat(64) };
    return { found: true, binary: { ...binary, source: 'explicit' } };
  }

  override async createSession(spec: SessionSpec) {
    const session = new RichSession(this.id, spec, this.options);
    this.sessions.push(session);
    return session;
  }
}

export interface A11yRig {
  daemon: Daemon;
  browser: Browser;
  page: Page;
  /** A working directory for new sessions. */
  workdir: string;
  harnesses: Record<'codex' | 'claude-code', ScriptedHarness>;
  open(): Promise<void>;
  dispose(): Promise<void>;
}

export async function a11yRig(viewport?: { width: number; height: number }): Promise<A11yRig> {
  await assertHermetic();
  if (!existsSync(BUILT_CONSOLE)) {
    throw new Error(`The console is not built (${BUILT_CONSOLE} is missing): run \`npm run build\` first.`);
  }
  const home = await mkdtemp(join(tmpdir(), 'reins-console-a11y-'));
  const workdir = join(home, 'work');
  await mkdir(workdir, { recursive: true });
  const harnesses = { codex: new RichHarness('codex'), 'claude-code': new RichHarness('claude-code') };
  // harness/list and the doctor probe the pinned CLIs themselves (in hermetic homes on the scripted
  // model, as the console's other real tests do): the picker and the doctor show real versions.
  const server = await startModelServer();
  const homes: TempHome[] = [];
  const harnessOptions: NonNullable<DaemonOptions['harnessOptions']> = {};
  for (const id of ['codex', 'claude-code'] as const) {
    const tempHome = await makeTempHome(`reins-console-a11y-${id}-`);
    homes.push(tempHome);
    const binary = harnessBinary(id);
    const launch = await harnessLaunch(id, { modelServerUrl: server.url, tempHome, binary });
    harnessOptions[id] = { binaryPath: binary.command, baseEnv: launch.env, requestTimeoutMs: 60_000 };
  }
  const daemon = await startDaemon({
    home: join(home, 'reins'),
    harnesses: ['codex', 'claude-code'],
    harnessOptions,
    logger: silentLogger,
    createHarness: async (id: HarnessId) => harnesses[id as keyof typeof harnesses],
  });
  const browser = await launchBrowser(viewport);
  return {
    daemon,
    browser,
    page: browser.page,
    workdir,
    harnesses,
    async open() {
      await browser.page.goto(consoleUrl(daemon.port, daemon.token));
      await browser.page.getByTestId('session-list').waitFor({ state: 'attached', timeout: WAIT_MS });
    },
    async dispose() {
      await browser.close().catch(() => {});
      await daemon.close().catch(() => {});
      await server.close().catch(() => {});
      for (const tempHome of homes) await tempHome.cleanup().catch(() => {});
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Starts a session from the New session page with the mouse (for tests about what comes after). */
export async function startByClicks(page: Page, harness: 'codex' | 'claude-code', cwd: string): Promise<string> {
  await page.evaluate(() => {
    window.location.hash = '#/new';
  });
  const option = page.locator(`.harness-option[data-harness="${harness}"]`);
  await option.waitFor({ timeout: WAIT_MS });
  await option.click();
  await page.getByTestId('cwd-input').fill(cwd);
  await page.getByTestId('create-session').click();
  await page.getByTestId('session-header').waitFor({ timeout: WAIT_MS });
  const match = /#\/session\/(.+)$/.exec(page.url());
  if (!match?.[1]) throw new Error(`No session page after creating a ${harness} session (at ${page.url()}).`);
  return decodeURIComponent(match[1]);
}
