// `reins run --json` (the built bin) against the fake Pi and the fake Amp, each sending mid-turn a frame
// that issue 14 measured ending the whole process (a Pi `{"type":"message_start"}` with nothing else, an
// Amp assistant message whose content is null). Now each is a passthrough with a warning, the turn
// completes and the CLI exits 0.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

const fixture = (path: string) => fileURLToPath(new URL(`../../harnesses/src/${path}`, import.meta.url));

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-cli-poison-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function events(stdout: string): ReinsEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ReinsEvent);
}

const CASES = [
  {
    harness: 'pi',
    frame: { type: 'message_start' },
    env: {
      REINS_PI_BIN: fakeHarnessPath('pi'),
      FAKE_PI_TRANSCRIPT: fixture('pi/fixtures/text.0.73.1.jsonl'),
      FAKE_PI_GARBAGE: JSON.stringify({ type: 'message_start' }),
    },
  },
  {
    harness: 'amp',
    frame: { type: 'assistant', message: { content: null }, parent_tool_use_id: null },
    env: {
      REINS_AMP_BIN: fakeHarnessPath('amp'),
      FAKE_AMP_SCRIPT: fixture('amp/fixtures/constructed-turns.0.0.1790142911-g7618fb.jsonl'),
      FAKE_AMP_GARBAGE: JSON.stringify({ type: 'assistant', message: { content: null }, parent_tool_use_id: null }),
    },
  },
] as const;

describe('reins run --json with a frame that used to crash the process', () => {
  it.each(CASES)(
    '$harness: passthrough with a warning, the turn completes, exit 0',
    async ({ harness, frame, env }) => {
      const result = await runCli(['run', '-H', harness, '--json', '-C', home, 'Say hello.'], {
        env: { PATH: process.env.PATH, HOME: home, ...env },
        timeoutMs: 30_000,
      });
      expect(result.stderr).not.toMatch(/\bat .+\.js:\d+/); // no stack trace
      expect(result.code).toBe(0);
      const stream = events(result.stdout);
      const passthrough = stream.find(
        (event) => event.type === 'passthrough' && JSON.stringify(event.frame) === JSON.stringify(frame),
      );
      expect(passthrough).toMatchObject({ reason: expect.stringMatching(/unknown|unparsable|untranslatable/) });
      expect(stream.some((event) => event.type === 'notice' && event.kind === 'warning')).toBe(true);
      expect(stream.filter((event) => event.type === 'turn.completed')).toMatchObject([
        { outcome: { status: 'completed' } },
      ]);
    },
  );
});
