// `reins sessions` against a real `reins daemon` (the built CLI, its SQLite store, a fake Codex app-server behind
// it): the listing (table and --json), `show ID` replaying a session as `reins run` prints it, and `attach ID`
// replaying it and then following it live until it closes.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, DaemonInfoSchema, type ReinsClient, type RemoteSession } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningCli, runCli, startCli } from './cli.js';

const FAKE_CODEX = fakeHarnessPath('codex');
const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);

let home: string;
let env: NodeJS.ProcessEnv;
let daemon: RunningCli | undefined;
let reins: ReinsClient | undefined;
// One daemon for the file (its start is the slow part); each test makes its own sessions.
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-cli-sessions-'));
  env = { ...process.env, REINS_HOME: join(home, 'reins'), NO_COLOR: '1' };
  daemon = startCli(['daemon'], { env });
  await daemon.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
  const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'reins', 'daemon.json'), 'utf8')));
  reins = await connect({ url: info.url, token: info.token, WebSocket, requestTimeoutMs: 20_000 });
});
afterAll(async () => {
  reins?.close();
  if (daemon && daemon.child.exitCode === null) {
    daemon.child.kill('SIGTERM');
    await daemon.done;
  }
  await rm(home, { recursive: true, force: true });
});

/** A Codex session in the daemon with one completed turn; resolves with it and the reply Codex gave. */
async function sessionWithOneTurn(): Promise<{ session: RemoteSession; reply: string }> {
  const session = await (reins as ReinsClient).createSession(
    'codex',
    { cwd: home },
    { binaryPath: FAKE_CODEX, baseEnv: { PATH: process.env.PATH ?? '', FAKE_CODEX_TRANSCRIPT: TRANSCRIPT } },
  );
  await session.send('Say hello.');
  let reply = '';
  for await (const event of session.events as AsyncIterable<ReinsEvent>) {
    if (event.type === 'item.completed' && event.item.kind === 'agent_message') reply = event.item.text;
    if (event.type === 'turn.completed') break;
  }
  return { session, reply };
}

describe('reins sessions (a real reins daemon)', () => {
  it('lists the daemon sessions, as a table and with --json', async () => {
    const { session } = await sessionWithOneTurn();
    const json = await runCli(['sessions', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as Array<{ sessionId: string; harness: string; lastSeq: number }>;
    const mine = listed.find((listing) => listing.sessionId === session.id);
    expect(mine).toMatchObject({ harness: 'codex', cwd: home });
    expect(mine?.lastSeq).toBeGreaterThan(0);
    const table = await runCli(['sessions'], { env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID +HARNESS +STATUS +UPDATED \(UTC\) +TITLE +FOLDER$/m);
    expect(table.stdout).toMatch(new RegExp(`^${session.id} +codex +\\w+ `, 'm'));
  });

  it('show ID replays the session as `reins run` prints it', async () => {
    const { session, reply } = await sessionWithOneTurn();
    expect(reply.trim()).not.toBe('');
    const shown = await runCli(['sessions', 'show', session.id], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('▶ Say hello.');
    expect(shown.stdout).toContain(reply.trim());
    expect(shown.stdout).toMatch(/✓ completed/);
    const json = await runCli(['sessions', 'show', session.id, '--json'], { env });
    const events = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ReinsEvent);
    const types = events.map((event) => event.type);
    expect(types).toContain('turn.started');
    expect(types).toContain('turn.completed');
    // NDJSON prints the native frames; the human replay asked the daemon to leave them out.
    expect(events.some((event) => event.native !== undefined)).toBe(true);
    const grants = (daemon?.stderr() ?? '')
      .split('\n')
      .filter((line) => line.includes('connection initialized') && line.includes('"client":"reins sessions/'));
    expect(grants.some((line) => line.includes('"omitNative":true'))).toBe(true);
    expect(grants.some((line) => line.includes('"omitNative":false'))).toBe(true);
  });

  it('attach ID replays, then follows the live session until it closes', async () => {
    const { session } = await sessionWithOneTurn();
    const attached = startCli(['sessions', 'attach', session.id], { env });
    await attached.waitForOutput(/✓ completed/, 20_000);
    await session.send('And again, live.');
    await attached.waitForOutput('▶ And again, live.', 20_000);
    await session.close();
    const result = await attached.done;
    expect(result.code, result.stderr).toBe(0);
  });

  it('says how to start a daemon when none runs, and refuses an unknown action', async () => {
    const none = await runCli(['sessions'], { env: { ...env, REINS_HOME: join(home, 'nowhere') } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No Reins daemon runs for .*nowhere.*reins daemon/);
    const unknown = await runCli(['sessions', 'kill', 'x'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown sessions action "kill"/);
  });
});
