// `reins demo` when lanes fail: --json still prints every lane's events (a failed lane's too) and says on
// stderr why it failed; the human view gives every reason in full below the columns; the exit code is 1.
// The lanes run the fake `claude` (claude-code/testing/fake.mjs), crashing mid-turn, and a target whose setup fails.
// And when lanes differ: two lanes replaying the same recording, one with a frame added to every turn,
// get per-lane checks that name what matched and what differed; no "same stream" verdict.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHarness } from '@reins/harnesses';
import { type ConformanceTarget, fakeHarnessPath, makeTempHome, type TempHome } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../io.js';
import { type DemoLane, runDemo } from './demo.js';

const FAKE_CLAUDE = fakeHarnessPath('claude-code');
const FIXTURES = fileURLToPath(new URL('../../../harnesses/src/claude-code/fixtures/', import.meta.url));
/** A recorded one-turn Claude Code session (named with the CLI version it was recorded on). */
const FIXTURE = join(
  FIXTURES,
  readdirSync(FIXTURES).find((name) => /^text-turn(\.[\d.]+)?\.jsonl$/.test(name)) ?? 'text-turn.jsonl',
);
/** Longer than any column: the human view must still show all of it. */
const LONG_REASON = `the gateway refused to start: ${'a reason that goes on and on, '.repeat(8)}and ends here`;

const temps: TempHome[] = [];
afterEach(async () => {
  for (const temp of temps.splice(0)) await temp.cleanup();
});

/** The fake `claude` replaying `fixture` as lane `id`; `knobs` alter what it sends. */
function fakeClaude(
  id: ConformanceTarget['id'],
  fixture: string,
  knobs: Record<string, string> = {},
): ConformanceTarget {
  return {
    id,
    async setup() {
      const temp = await makeTempHome('reins-demo-test-');
      temps.push(temp);
      const harness = await createHarness('claude-code', {
        binaryPath: FAKE_CLAUDE,
        baseEnv: {
          PATH: process.env.PATH ?? '',
          HOME: temp.home,
          TMPDIR: temp.tmp,
          IS_SANDBOX: '1',
          FAKE_CLAUDE_FIXTURE: fixture,
          ...knobs,
        },
      });
      return { harness, models: { primary: 'claude-sonnet-4-5', alternate: 'claude-opus-4-1' } };
    },
  };
}

const crashingClaude = () => fakeClaude('claude-code', FIXTURE, { FAKE_CLAUDE_CRASH_AFTER: '4' });

/** A three-turn recording replayed by the fake `claude`. */
const replayingClaude = (id: ConformanceTarget['id'], knobs: Record<string, string> = {}) =>
  fakeClaude(id, join(FIXTURES, 'queued-follow-up.2.1.197.jsonl'), knobs);

/** An extra assistant message in every turn: one more agent_message item than the other lane has. */
const EXTRA_MESSAGE = JSON.stringify({
  type: 'assistant',
  message: { id: 'msg_extra', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'An extra word.' }] },
  parent_tool_use_id: null,
  session_id: 'extra',
});

function brokenSetup(): ConformanceTarget {
  return {
    id: 'openclaw',
    async setup() {
      throw new Error(LONG_REASON);
    },
  };
}

function captureIo(columns: number): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (append: (text: string) => void) =>
    ({
      write: (chunk: string | Uint8Array) => {
        append(chunk.toString());
        return true;
      },
    }) as unknown as CliIo['stdout'];
  return {
    stdout: sink((text) => {
      out += text;
    }),
    stderr: sink((text) => {
      err += text;
    }),
    stdin: process.stdin,
    env: { COLUMNS: String(columns), NO_COLOR: '1' },
    cwd: process.cwd(),
    out: () => out,
    err: () => err,
  };
}

const lanes = (): DemoLane[] => [
  { target: crashingClaude(), version: '9.9.9' },
  { target: brokenSetup(), version: '1.0.0' },
];

describe('reins demo with failing lanes', () => {
  it('--json prints the events of a lane that failed, says why on stderr, and exits 1', async () => {
    const io = captureIo(120);
    const code = await runDemo(lanes(), io, { json: true, turnTimeoutMs: 20_000 });
    expect(code).toBe(1);
    const events = io
      .out()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; harness: string; outcome?: { status: string } });
    expect(new Set(events.map((event) => event.harness))).toEqual(new Set(['claude-code']));
    expect(events.map((event) => event.type)).toContain('session.started');
    const terminal = events.find((event) => event.type === 'turn.completed');
    expect(terminal?.outcome?.status).toBe('failed');
    expect(io.err()).toMatch(
      /^reins demo: claude-code failed: the turn "What is in this workspace\?" failed: \[process_exited\]/m,
    );
    expect(io.err()).toContain(`reins demo: openclaw failed: ${LONG_REASON}\n`);
  });

  it('the side-by-side view gives every failure in full below the columns, exit 1', async () => {
    const io = captureIo(80);
    const code = await runDemo(lanes(), io, { json: false, turnTimeoutMs: 20_000 });
    expect(code).toBe(1);
    const out = io.out();
    expect(out).toContain('○ claude-code 9.9.9');
    expect(out).toContain('○ openclaw 1.0.0');
    // The column cuts the reason to its width; the footer does not.
    expect(out).toMatch(/failed: the gateway refused to st.*…/);
    expect(out).toContain('Failed: claude-code, openclaw');
    expect(out).toContain(`openclaw 1.0.0: ${LONG_REASON}\n`);
    expect(out).toMatch(/^claude-code 9\.9\.9: the turn "What is in this workspace\?" failed: \[process_exited\] .+$/m);
  });
});

describe('reins demo compares the lanes', () => {
  it("names what matched and what differed per lane when one lane's stream is altered", async () => {
    const io = captureIo(200);
    const altered: DemoLane[] = [
      { target: replayingClaude('claude-code'), version: '1.0.0' },
      { target: replayingClaude('gemini', { FAKE_CLAUDE_INJECT: EXTRA_MESSAGE }), version: '2.0.0' },
      { target: replayingClaude('qwen-code'), version: '3.0.0' },
    ];
    const code = await runDemo(altered, io, { json: false, turnTimeoutMs: 20_000 });
    const out = io.out();
    expect(code, out).toBe(1); // the recording writes no NOTES.md: a failed lane, as before
    expect(out).not.toContain('gave the same normalized stream');
    expect(out).toContain('Matched on every check: 0 of 3 lanes. Differed: claude-code, gemini, qwen-code');
    // The recording's replies are not the demo's script: every lane says so, turn by turn.
    expect(out).toMatch(/^claude-code 1\.0\.0 differed: replies: turn 1 said ".+", not "An empty demo workspace\."/m);
    expect(out).toMatch(/^claude-code 1\.0\.0 differed: NOTES\.md on disk: NOTES\.md is not on disk/m);
    // The altered lane alone has another item sequence than the two others.
    expect(out).toMatch(/^gemini 2\.0\.0 differed: item kinds: turn 1 had .*agent_message, agent_message/m);
    expect(out).not.toMatch(/^(claude-code|qwen-code) .* differed: item kinds/m);
    expect(out.match(/✓ turn outcomes/g)).toHaveLength(3);
    expect(out.match(/✓ item kinds/g)).toHaveLength(2);
    expect(out.match(/≠ item kinds/g)).toHaveLength(1);
  });
});
