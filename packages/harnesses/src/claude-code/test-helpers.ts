// Shared by the Claude Code tests: an event log whose every wait has a deadline, the stream checks
// every test makes (seq 1..n without gaps, exactly one turn.completed per turn, the testkit's
// invariants), and the real-CLI rig (pinned 2.1.197, hermetic home, scripted Anthropic server,
// optional fixture recording with REINS_RECORD_FIXTURES=1).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness, ReinsEvent, Session, SessionSpec, TurnCompletedEvent } from '@reins/core';
import {
  assertHermetic,
  buildClaudeCodeHome,
  fixtureRecorder,
  type HarnessBinary,
  type HarnessHome,
  harnessBinary,
  type ModelServer,
  makeTempHome,
  startModelServer,
  streamViolations,
  type TempHome,
} from '@reins/testkit';
import { expect } from 'vitest';
import { type ClaudeCodeHarnessOptions, createClaudeCodeHarness } from './adapter.js';

export const FIXTURES_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const FAKE_CLAUDE = fileURLToPath(new URL('../../../testkit/fakes/claude-stream-json.mjs', import.meta.url));

export class EventLog {
  readonly events: ReinsEvent[] = [];
  private waiters: Array<() => void> = [];
  readonly done: Promise<void>;

  constructor(source: AsyncIterable<ReinsEvent>) {
    this.done = (async () => {
      for await (const event of source) {
        this.events.push(event);
        for (const wake of this.waiters.splice(0)) wake();
      }
      for (const wake of this.waiters.splice(0)) wake();
    })();
  }

  async waitFor(predicate: (event: ReinsEvent) => boolean, what: string, timeoutMs = 30_000): Promise<ReinsEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(predicate);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = this.events.map((event) => event.type).join(', ');
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; events so far: ${seen}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async turnCompleted(turnId: string, timeoutMs?: number): Promise<TurnCompletedEvent> {
    return (await this.waitFor(
      (event) => event.type === 'turn.completed' && event.turnId === turnId,
      `turn.completed of ${turnId}`,
      timeoutMs,
    )) as TurnCompletedEvent;
  }

  ofTurn(turnId: string): ReinsEvent[] {
    return this.events.filter((event) => event.turnId === turnId);
  }

  ofType<T extends ReinsEvent['type']>(type: T): Extract<ReinsEvent, { type: T }>[] {
    return this.events.filter((event): event is Extract<ReinsEvent, { type: T }> => event.type === type);
  }
}

/** seq 1..n without gaps, exactly one turn.completed per turn.started, and the testkit's invariants. */
export function expectSoundStream(events: readonly ReinsEvent[]): void {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const started = events.filter((event) => event.type === 'turn.started').map((event) => event.turnId);
  const completed = events.filter((event) => event.type === 'turn.completed').map((event) => event.turnId);
  expect(completed).toEqual(started);
  expect(new Set(completed).size).toBe(completed.length);
  expect(streamViolations(events)).toEqual([]);
}

export interface ClaudeRig {
  server: ModelServer;
  home: HarnessHome;
  tempHome: TempHome;
  binary: HarnessBinary;
  workdir: string;
  harness: Harness;
  harnessOptions(extra?: Partial<ClaudeCodeHarnessOptions>): ClaudeCodeHarnessOptions;
  open(
    spec?: Partial<SessionSpec>,
    options?: Partial<ClaudeCodeHarnessOptions>,
  ): Promise<{ session: Session; log: EventLog }>;
  cleanup(): Promise<void>;
}

/** A hermetic Claude Code rig on the pinned CLI against the scripted Anthropic server. */
export async function claudeRig(scenario: string, options: { strict?: boolean } = {}): Promise<ClaudeRig> {
  await assertHermetic();
  const binary = harnessBinary('claude-code');
  const server = await startModelServer({ strict: options.strict ?? false });
  const tempHome = await makeTempHome('reins-cc-');
  const home = await buildClaudeCodeHome({ modelServerUrl: server.url, tempHome, binary });
  const workdir = join(tempHome.dir, 'work');
  await mkdir(workdir);
  const recorder =
    process.env.REINS_RECORD_FIXTURES === '1'
      ? fixtureRecorder({ harness: 'claude-code', version: binary.version, scenario })
      : undefined;
  const sessions: Session[] = [];
  const harnessOptions = (extra: Partial<ClaudeCodeHarnessOptions> = {}): ClaudeCodeHarnessOptions => ({
    binaryPath: binary.command,
    baseEnv: home.env,
    requestTimeoutMs: 30_000,
    ...(recorder ? { tap: recorder.tap } : {}),
    ...extra,
  });
  const harness = createClaudeCodeHarness(harnessOptions());
  return {
    server,
    home,
    tempHome,
    binary,
    workdir,
    harness,
    harnessOptions,
    async open(spec = {}, extra) {
      const target = extra ? createClaudeCodeHarness(harnessOptions(extra)) : harness;
      const session = await target.createSession({ cwd: workdir, ...spec });
      sessions.push(session);
      return { session, log: new EventLog(session.events) };
    },
    async cleanup() {
      await Promise.all(sessions.map((session) => session.close()));
      await server.close();
      if (recorder) {
        const path = join(FIXTURES_DIR, `${scenario}.jsonl`);
        await recorder.save(path);
        // Machine paths out, so fixtures are stable and say nothing about the recording machine.
        const text = (await readFile(path, 'utf8'))
          .split(tempHome.dir)
          .join('<tmp>')
          .split(server.url)
          .join('<server>');
        await writeFile(path, text);
      }
      await tempHome.cleanup();
    },
  };
}
