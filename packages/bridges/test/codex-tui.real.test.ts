// Real tier, hermetic: the official Codex TUI 0.171.0 (`codex --remote ws://… --remote-auth-token-env`)
// in a tmux pane, typed into as a person types. First against the REAL `codex app-server --listen
// ws://` (the calibration the bridge must match), then against `reins bridge codex-app-server -H
// claude-code` over ws:// and unix://, both on the scripted model server: a text turn, a shell
// command, a `!` command, a second turn in the same conversation, Esc then another turn; a wrong
// token refused; a file offered by `@` whose path reaches the model, and `/compact` then a turn on the summary
// (both also in the calibration run). Cases on the bridge alone (calibrated once by hand against the real
// app-server, docs/architecture/bridges.md "What the Codex TUI calls"): an approval answered in the TUI under
// `-a on-request`, a model picked with `/model`, the thread resumed from `codex resume` in a second bridge
// process, and the bridge in front of an ACP agent (the real claude-agent-acp) on the whole script.
// A recording proxy between the TUI and the server logs which methods the TUI calls (printed) and
// every frame the bridge wrote is validated against the pinned Codex's JSON Schema.
// Run: node packages/testkit/bin/hermetic.mjs -- npx vitest run --project real packages/bridges/test/codex-tui.real.test.ts
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { harnessBinary, reply, until } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { transcriptViolations } from './support/codex-schema.js';
import { REINS } from './support/processes.js';
import { type RealBridgeHome, realBridgeHome } from './support/real-bridge.js';
import { RecordingProxy, TmuxPane, tuiCodexHome } from './support/tui.js';

const TOKEN = `tui-token-${randomUUID()}`;
const TOKEN_ENV = 'REINS_TEST_TUI_TOKEN';
const LONG_TEXT = Array.from({ length: 120 }, (_, index) => `word${index}`).join(' ');

interface Server {
  child: ChildProcess;
  log: () => string;
  url: string;
  /** SIGTERM, and its exit awaited (also done at cleanup). */
  stop: () => Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(command: string, args: string[], home: RealBridgeHome): Promise<Server> {
  const child = spawn(command, args, { env: home.env, cwd: home.cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  cleanups.push(stop);
  // Generous: a bridge (it runs the harness's `--version` first) was not listening after 60 s once at load 17.
  await until(() => /listening on: (ws|unix):\/\/\S+/.test(log), `the server to listen (log: ${log})`, 120_000);
  const url = (/listening on: ((?:ws|unix):\/\/\S+)/.exec(log) as RegExpExecArray)[1] as string;
  return { child, log: () => log, url, stop };
}

async function tokenFile(home: RealBridgeHome): Promise<string> {
  const file = join(home.tempHome.dir, 'ws-token');
  await writeFile(file, `${TOKEN}\n`, { mode: 0o600 });
  return file;
}

/** The TUI against `remote`; `token` travels as its bearer token (none on unix://). */
async function startTui(
  home: RealBridgeHome,
  remote: string,
  token: string | null = TOKEN,
  extra: string[] = [],
  subcommand: string[] = [],
): Promise<TmuxPane> {
  const codexHome = await tuiCodexHome(home.tempHome.dir);
  const pane = TmuxPane.start(
    `reins-tui-${randomUUID().slice(0, 8)}`,
    [
      harnessBinary('codex').command,
      ...subcommand,
      '--remote',
      remote,
      ...(token ? ['--remote-auth-token-env', TOKEN_ENV] : []),
      ...extra,
    ],
    {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home.tempHome.home,
      CODEX_HOME: codexHome,
      TERM: 'xterm-256color',
      ...(token ? { [TOKEN_ENV]: token } : {}),
    },
    home.cwd,
  );
  cleanups.push(() => pane.kill());
  return pane;
}

/** The TUI's composer, ready for input (its placeholder or prompt line). */
const COMPOSER = /›|Ask Codex|context left|send/i;

async function textTurn(pane: TmuxPane, home: RealBridgeHome): Promise<void> {
  home.server.when('tui first turn', reply().text('Hello from turn one of the TUI'));
  await pane.submit('tui first turn');
  await pane.waitFor(/Hello from turn one of the TUI/, 'the first answer');
}

async function shellTurn(pane: TmuxPane, home: RealBridgeHome): Promise<void> {
  const { server } = home;
  server.when('tui shell turn', reply().shell('echo tui-shell-$((40+2))'));
  // The tool round: its request carries the command's output (the TUI's title request may come between).
  server.when(/tui-shell-42/, reply().text('The shell printed its line'), { in: 'body' });
  await pane.submit('tui shell turn');
  await pane.waitFor(/The shell printed its line/, 'the answer after the shell command');
  // The command ran: its output went back to the model.
  expect(JSON.stringify(server.requests.map((request) => request.body))).toContain('tui-shell-42');
}

/** A turn after textTurn: one conversation, so its request to the model carries the first turn. */
async function secondTurn(pane: TmuxPane, home: RealBridgeHome): Promise<void> {
  const { server } = home;
  server.when('tui second turn', reply().text('Second answer, same conversation'));
  await pane.submit('tui second turn');
  await pane.waitFor(/Second answer, same conversation/, 'the second answer');
  // The turn's own request: a harness's title request (claude-agent-acp names the session) quotes it too.
  const second = server.requests.find(
    (request) => request.scripted && JSON.stringify(request.body).includes('tui second turn'),
  );
  expect(JSON.stringify(second?.body)).toContain('tui first turn');
}

/** The script both servers must pass: text, shell, a second turn, Esc then another turn. */
async function drive(pane: TmuxPane, home: RealBridgeHome): Promise<void> {
  const { server } = home;
  await pane.waitFor(COMPOSER, 'the composer');
  await textTurn(pane, home);
  await shellTurn(pane, home);

  // `!command`: thread/shellCommand, run by the server itself as a turn of its own.
  await pane.submit('!echo tui-bang-$((2+3))');
  await pane.waitFor(/tui-bang-5/, "the `!` command's output");

  await secondTurn(pane, home);

  server.when('tui long turn', reply().text(LONG_TEXT).delayMs(250));
  await pane.submit('tui long turn');
  await pane.waitFor(/word3\b/, 'the long answer streaming');
  pane.key('Escape');
  await pane.waitFor(/interrupt/i, 'the interrupt shown');
  server.when('tui after escape', reply().text('Answer after the interrupt'));
  await pane.submit('tui after escape');
  await pane.waitFor(/Answer after the interrupt/, 'the answer after Esc');
  expect(pane.screen()).not.toMatch(/word119/);
}

/** The bridge in front of the home's real harness on ws:// with the token, behind a recording proxy. */
async function bridgeBehindProxy(home: RealBridgeHome): Promise<{ bridge: Server; proxy: RecordingProxy }> {
  const bridge = await startServer(
    process.execPath,
    [
      REINS,
      'bridge',
      'codex-app-server',
      '-H',
      home.target,
      '--binary',
      home.binaryPath,
      '--listen',
      'ws://127.0.0.1:0',
      '--ws-auth',
      'capability-token',
      '--ws-token-file',
      await tokenFile(home),
    ],
    home,
  );
  const proxy = await RecordingProxy.start(bridge.url);
  cleanups.push(() => proxy.close());
  return { bridge, proxy };
}

/** The composer once the TUI has its thread (typing during "Waiting for startup" loses the Enter). */
async function ready(pane: TmuxPane, proxy?: RecordingProxy): Promise<void> {
  await pane.waitFor(/Ask Codex to do anything/, 'the composer');
  // The composer shows before the thread is open (at load 17 a `/model` sent then was lost behind
  // "Waiting for startup"): through a proxy, wait for the server's answer to thread/start or thread/resume.
  if (proxy)
    await until(() => threadOpened(proxy), 'the thread to open (thread/start or thread/resume answered)', 120_000);
  await until(() => !/Waiting for startup/.test(pane.screen()), 'the TUI to finish starting', 60_000);
}

function threadOpened(proxy: RecordingProxy): boolean {
  return proxy.connections.some(({ fromClient, fromServer }) =>
    fromClient.some(
      (sent) =>
        (sent.method === 'thread/start' || sent.method === 'thread/resume') &&
        fromServer.some((answer) => answer.id === sent.id && answer.result !== undefined),
    ),
  );
}

/** Frames of the recorded transcript that are not checked: experimental methods have no type in the stable schema. */
const UNTYPED = /the Codex schema has no (response|request) type/;

function report(label: string, proxy: RecordingProxy): void {
  console.info(`${label}: the TUI called ${proxy.methodsCalled().join(', ')}`);
  const errors = proxy.errorsAnswered();
  if (errors.length > 0) console.info(`${label}: answered with errors: ${errors.join(' | ')}`);
}

/**
 * Two turns, `/compact`, one more turn: the TUI sends thread/compact/start, shows "Context compacted"
 * without a user message, and the next request carries the scripted summary instead of the turns.
 * `auxiliary`: how the model server names the harness's summary request (model-server auxiliary.ts).
 */
async function compactTurns(pane: TmuxPane, home: RealBridgeHome, proxy: RecordingProxy, auxiliary: string) {
  for (const [prompt, answer] of [
    ['tui compact one', 'First answer before compacting'],
    ['tui compact two', 'Second answer before compacting'],
  ] as const) {
    home.server.when(prompt, reply().text(answer));
    await pane.submit(prompt);
    await pane.waitFor(new RegExp(answer), `the answer to ${prompt}`);
  }
  await pane.submit('/compact');
  await pane.waitFor(/Context compacted/, 'the compaction shown');
  const asked = proxy.fromClient.find((message) => message.method === 'thread/compact/start');
  expect(proxy.fromServer).toContainEqual({ id: asked?.id, result: {} });
  expect(home.server.requests.map((request) => request.auxiliary)).toContain(auxiliary);
  // The compaction turn shows no user message: `/compact` is not something the user said to the model.
  expect(pane.screen()).not.toMatch(/› \/compact/);
  home.server.when('tui after compact', reply().text('Answered after the compaction'));
  await pane.submit('tui after compact');
  await pane.waitFor(/Answered after the compaction/, 'the answer after the compaction');
  const after = home.server.requests.find(
    (request) => request.scripted && JSON.stringify(request.body).includes('tui after compact'),
  );
  expect(JSON.stringify(after?.body)).toContain('Scripted summary of the conversation so far.');
}

/** `@` offers a file of the TUI's folder; Tab puts its path in the composer (the TUI lists files itself). */
async function mentionFile(pane: TmuxPane, home: RealBridgeHome): Promise<void> {
  await mkdir(join(home.cwd, 'notes'), { recursive: true });
  await writeFile(join(home.cwd, 'notes', 'zebra-findme.txt'), 'stripes\n');
  await pane.type('@zebra');
  await pane.waitFor(/zebra-findme\.txt/, 'the file offered');
  pane.key('Tab');
  await pane.waitFor(/notes\/zebra-findme\.txt/, 'the path in the composer');
  home.server.when('tui mention turn', reply().text('Saw the zebra file'));
  await pane.submit(' tui mention turn');
  await pane.waitFor(/Saw the zebra file/, 'the answer to the mention');
  const mention = home.server.requests.find(
    (request) => request.scripted && JSON.stringify(request.body).includes('tui mention turn'),
  );
  expect(JSON.stringify(mention?.body)).toContain('notes/zebra-findme.txt');
}

describe('the official Codex TUI 0.171.0 over ws:// (tmux)', () => {
  it('calibration: drives the real `codex app-server --listen ws://` on the scripted model', async () => {
    const home = await realBridgeHome('codex');
    cleanups.push(() => home.dispose());
    const codex = harnessBinary('codex');
    const server = await startServer(
      codex.command,
      [
        ...codex.args,
        ...home.launch.args,
        '--listen',
        'ws://127.0.0.1:0',
        '--ws-auth',
        'capability-token',
        '--ws-token-file',
        await tokenFile(home),
      ],
      home,
    );
    const proxy = await RecordingProxy.start(server.url);
    cleanups.push(() => proxy.close());
    const pane = await startTui(home, `ws://127.0.0.1:${proxy.port}`);
    await drive(pane, home);
    // The flows the bridge cases below run on their own, here once against Codex itself.
    await mentionFile(pane, home);
    await compactTurns(pane, home, proxy, 'codex.compact');
    report('codex app-server', proxy);
  }, 300_000);

  it('drives reins bridge codex-app-server -H claude-code (real Claude Code), and refuses a wrong token', async () => {
    const home = await realBridgeHome('claude-code');
    cleanups.push(() => home.dispose());
    const bridge = await startServer(
      process.execPath,
      [
        REINS,
        'bridge',
        'codex-app-server',
        '-H',
        'claude-code',
        '--binary',
        home.binaryPath,
        '--listen',
        'ws://127.0.0.1:0',
        '--ws-auth',
        'capability-token',
        '--ws-token-file',
        await tokenFile(home),
      ],
      home,
    );
    const proxy = await RecordingProxy.start(bridge.url);
    cleanups.push(() => proxy.close());
    const pane = await startTui(home, `ws://127.0.0.1:${proxy.port}`);
    await drive(pane, home);
    report('reins bridge (claude-code)', proxy);
    // configRequirements/read and the experimental GovCloud check have no response type in the
    // pinned (stable) schema: nothing to validate them against.
    const violations = transcriptViolations(proxy.fromClient, proxy.fromServer);
    expect(
      violations.filter((violation) => !violation.errors.startsWith('the Codex schema has no response type')),
    ).toEqual([]);

    const refused = await startTui(home, bridge.url, 'not-the-token');
    await refused.waitFor(/401|unauthori[sz]ed|invalid websocket bearer token|failed to connect/i, 'the refusal shown');
    expect(bridge.log()).toMatch(/refused a connection: 401 Unauthorized \(invalid websocket bearer token\)/);
  }, 400_000);

  it('drives the bridge over unix:// (a text turn)', async () => {
    const home = await realBridgeHome('claude-code');
    cleanups.push(() => home.dispose());
    const socket = join(home.tempHome.dir, 'bridge.sock');
    await startServer(
      process.execPath,
      [
        REINS,
        'bridge',
        'codex-app-server',
        '-H',
        'claude-code',
        '--binary',
        home.binaryPath,
        '--listen',
        `unix://${socket}`,
      ],
      home,
    );
    const pane = await startTui(home, `unix://${socket}`, null);
    await pane.waitFor(COMPOSER, 'the composer');
    home.server.when('tui unix turn', reply().text('Hello over the Unix socket'));
    await pane.submit('tui unix turn');
    await pane.waitFor(/Hello over the Unix socket/, 'the answer over unix://');
  }, 300_000);

  it('asks for a command Claude Code wants to run, under -a on-request, and runs it once approved in the TUI', async () => {
    const home = await realBridgeHome('claude-code');
    cleanups.push(() => home.dispose());
    const { proxy } = await bridgeBehindProxy(home);
    const pane = await startTui(home, `ws://127.0.0.1:${proxy.port}`, TOKEN, ['-a', 'on-request']);
    await ready(pane, proxy);
    home.server.when('tui approval turn', reply().shell('touch approved-in-tui.txt'));
    home.server.when(/approved-in-tui/, reply().text('The approved command ran'), { in: 'body' });
    await pane.submit('tui approval turn');
    // The TUI's own approval prompt (the same as in front of the real app-server).
    await pane.waitFor(
      /Would you like to run the following command\?[\s\S]*touch approved-in-tui\.txt/,
      'the approval',
    );
    pane.key('y');
    await pane.waitFor(/The approved command ran/, 'the answer after the approval');
    await until(() => existsSync(join(home.cwd, 'approved-in-tui.txt')), 'the approved file', 15_000);
    expect(proxy.fromClient).toContainEqual(expect.objectContaining({ result: { decision: 'accept' } }));
    const violations = transcriptViolations(proxy.fromClient, proxy.fromServer);
    expect(violations.filter((violation) => !UNTYPED.test(violation.errors))).toEqual([]);
  }, 120_000);

  it("switches the harness's model from the TUI's /model picker", async () => {
    const home = await realBridgeHome('claude-code');
    cleanups.push(() => home.dispose());
    const { proxy } = await bridgeBehindProxy(home);
    const pane = await startTui(home, `ws://127.0.0.1:${proxy.port}`);
    await ready(pane, proxy);
    const modelAsked = async (prompt: string, answer: string): Promise<unknown> => {
      home.server.when(prompt, reply().text(answer));
      await pane.submit(prompt);
      await pane.waitFor(new RegExp(answer), `the answer to ${prompt}`);
      const request = home.server.requests.find((sent) => sent.scripted && JSON.stringify(sent.body).includes(prompt));
      return (request?.body as { model?: unknown } | undefined)?.model;
    };
    // The TUI refuses /model until its start-up is complete ("Model selection is disabled until startup
    // completes"), a moment after the composer shows on a loaded machine: asked again until it opens.
    let picker: string | undefined;
    for (const deadline = Date.now() + 60_000; picker === undefined; ) {
      await pane.submit('/model');
      picker = await pane.waitFor(/Select Model/, 'the model picker', 5_000).catch((error: unknown) => {
        if (Date.now() > deadline || !/disabled until startup completes/.test(pane.screen())) throw error;
        return undefined;
      });
    }
    // The picker lists what the harness offers (model/list); its last entry is the home's own model.
    const entries = picker.split('\n').filter((line) => /^\W*\d+\. /.test(line));
    const current = entries.findIndex((line) => line.includes('(current)'));
    expect(entries.at(-1)).toMatch(new RegExp(home.model));
    expect(current).toBeLessThan(entries.length - 1);
    for (let step = current; step < entries.length - 1; step++) pane.key('Down');
    await new Promise((resolve) => setTimeout(resolve, 500));
    pane.key('Enter');
    // A model with efforts asks for one next; Enter takes its default.
    await until(
      () => /Select Reasoning Level|Failed to save|Model changed/.test(pane.screen()),
      'the next step',
      15_000,
    );
    if (/Select Reasoning Level/.test(pane.screen())) pane.key('Enter');
    // The thread switches (thread/settings/update); saving it as the default has no config file to go to.
    await pane.waitFor(/keeps no Codex config file/, 'the readable refusal to save the default');
    const update = proxy.fromClient.find((message) => message.method === 'thread/settings/update');
    expect(proxy.fromServer).toContainEqual({ id: update?.id, result: {} });
    const after = await modelAsked('tui after the pick', 'Answered on the picked model');
    expect(update?.params?.model).toBe(home.model);
    // The harness's next model request names the picked model.
    expect(after).toBe(home.model);
  }, 120_000);

  it('offers a file for `@`, and a thread resumed from `codex resume` in a new bridge continues it', async () => {
    const home = await realBridgeHome('claude-code');
    cleanups.push(() => home.dispose());
    const first = await bridgeBehindProxy(home);
    const pane = await startTui(home, `ws://127.0.0.1:${first.proxy.port}`);
    await ready(pane, first.proxy);
    // The TUI's `@` picker lists files itself (docs/architecture/bridges.md "What the Codex TUI calls").
    await mentionFile(pane, home);

    // Bridge A goes away; bridge B on the same REINS_HOME serves the resume picker.
    pane.kill();
    await first.proxy.close();
    await first.bridge.stop();
    const { proxy } = await bridgeBehindProxy(home);
    const resumed = await startTui(home, `ws://127.0.0.1:${proxy.port}`, TOKEN, [], ['resume']);
    await resumed.waitFor(/Resume a previous session[\s\S]*tui mention turn/, 'the thread in the picker');
    resumed.key('Enter');
    // The earlier turn in the TUI's history, then a turn that continues the same conversation.
    await resumed.waitFor(/Saw the zebra file/, 'the earlier answer in the history');
    await ready(resumed, proxy);
    home.server.when('tui resumed turn', reply().text('Continued after the resume'));
    await resumed.submit('tui resumed turn');
    await resumed.waitFor(/Continued after the resume/, 'the answer after the resume');
    const after = home.server.requests.find(
      (request) => request.scripted && JSON.stringify(request.body).includes('tui resumed turn'),
    );
    expect(JSON.stringify(after?.body)).toContain('tui mention turn');
    expect(proxy.methodsCalled()).toContain('thread/resume');
    const violations = proxy.connections.flatMap((sent) => transcriptViolations(sent.fromClient, sent.fromServer));
    expect(violations.filter((violation) => !UNTYPED.test(violation.errors))).toEqual([]);
  }, 180_000);

  it('drives the bridge in front of an ACP agent (the real claude-agent-acp): the same script as Claude Code', async () => {
    const home = await realBridgeHome('claude-agent-acp');
    cleanups.push(() => home.dispose());
    const { proxy } = await bridgeBehindProxy(home);
    const pane = await startTui(home, `ws://127.0.0.1:${proxy.port}`);
    await ready(pane, proxy);
    await drive(pane, home);
    report('reins bridge (claude-agent-acp)', proxy);
    const violations = transcriptViolations(proxy.fromClient, proxy.fromServer);
    expect(violations.filter((violation) => !UNTYPED.test(violation.errors))).toEqual([]);
  }, 180_000);

  // Calibrated against the real `codex app-server` (2026-12-02, docs/architecture/bridges.md "What the Codex
  // TUI calls"): `/compact` is thread/compact/start, the TUI shows "Context compacted" and the next turn runs.
  it('compacts with /compact in front of Claude Code: "Context compacted" shown, and the next turn runs on the summary', async () => {
    const home = await realBridgeHome('claude-code');
    cleanups.push(() => home.dispose());
    const { proxy } = await bridgeBehindProxy(home);
    const pane = await startTui(home, `ws://127.0.0.1:${proxy.port}`);
    await ready(pane);
    await compactTurns(pane, home, proxy, 'claude-code.compact');
    report('reins bridge (claude-code) /compact', proxy);
    const violations = transcriptViolations(proxy.fromClient, proxy.fromServer);
    expect(violations.filter((violation) => !UNTYPED.test(violation.errors))).toEqual([]);
  }, 180_000);
});
