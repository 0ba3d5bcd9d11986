// `reins run -H codex --json` (the built bin) against the fake Codex app-server, with a frame from a
// newer Codex sent mid-turn: an item of a kind this Reins does not know (issue 14: it used to end the
// process with exit 1 and a stack trace). Now the frame is a passthrough with one warning notice, the
// turn completes and the CLI exits 0.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

const FAKE_CODEX = fakeHarnessPath('codex');
const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);
const UNKNOWN_ITEM = {
  method: 'item/started',
  params: { threadId: '{{threadId}}', item: { type: 'futureItemKind', id: 'x' } },
};

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-cli-unknown-frame-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('reins run --json with a Codex frame this Reins does not know', () => {
  it('passes the frame through with a warning, completes the turn and exits 0', async () => {
    const result = await runCli(['run', '-H', 'codex', '--json', '-C', home, 'Say hello.'], {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        REINS_CODEX_BIN: FAKE_CODEX,
        FAKE_CODEX_TRANSCRIPT: TRANSCRIPT,
        FAKE_CODEX_INJECT: JSON.stringify(UNKNOWN_ITEM),
        FAKE_CODEX_INJECT_AFTER: 'item/agentMessage/delta',
      },
      timeoutMs: 30_000,
    });
    expect(result.stderr).not.toMatch(/\bat .+\.js:\d+/); // no stack trace
    expect(result.code).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as ReinsEvent);
    const passthrough = events.find(
      (event) =>
        event.type === 'passthrough' &&
        JSON.stringify((event.frame as { params?: { item?: unknown } }).params?.item) ===
          JSON.stringify(UNKNOWN_ITEM.params.item),
    );
    expect(passthrough).toMatchObject({ type: 'passthrough', reason: expect.stringMatching(/unknown|untranslatable/) });
    expect(passthrough?.turnId).not.toBeNull();
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'notice',
        kind: 'warning',
        data: expect.objectContaining({ method: 'item/started' }),
      }),
    );
    const text = events.flatMap((event) => (event.type === 'item.delta' ? [event.text] : [])).join('');
    expect(text).toBe('Hello from the scripted model.');
    expect(events.filter((event) => event.type === 'turn.completed')).toMatchObject([
      { outcome: { status: 'completed' } },
    ]);
  });
});
