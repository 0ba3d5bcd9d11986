// Shared by the Codex tests: an event log with deadlines, the stream assertions every test makes
// (seq without gaps, exactly one turn.completed per turn, the testkit's stream invariants), and the
// real-CLI rig (pinned Codex, hermetic home, scripted model server, optional fixture recording).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness, ReinsEvent, Session, SessionSpec, TurnCompletedEvent } from '@reins/core';
import {
  assertHermetic,
  buildCodexHome,
  fixtureRecorder,
  type HarnessHome,
  harnessBinary,
  type ModelServer,
  makeTempHome,
  startModelServer,
  streamViolations,
  type TempHome,
} from '@reins/testkit';
import { expect } from 'vitest';
import { type CodexHarnessOptions, createCodexHarness } from './adapter.js';

export const FIXTURES_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Reads a session's events in the background; every wait has a deadline. */
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

  async waitFor<T extends ReinsEvent>(
    predicate: (event: ReinsEvent) => event is T,
    what: string,
    timeoutMs?: number,
  ): Promise<T>;
  async waitFor(predicate: (event: ReinsEvent) => boolean, what: string, timeoutMs?: number): Promise<ReinsEvent>;
  async waitFor(predicate: (event: ReinsEvent) => boolean, what: string, timeoutMs = 20_000): Promise<ReinsEvent> {
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

  turnCompleted(turnId: string, timeoutMs?: number): Promise<TurnCompletedEvent> {
    return this.waitFor(
      (event): event is TurnCompletedEvent => event.type === 'turn.completed' && event.turnId === turnId,
      `turn.completed of ${turnId}`,
      timeoutMs,
    );
  }

  ofTurn(turnId: string): ReinsEvent[] {
    return this.events.filter((event) => event.turnId === turnId);
  }

  ofType<T extends ReinsEvent['type']>(type: T): Extract<ReinsEvent, { type: T }>[] {
    return this.events.filter((event): event is Extract<ReinsEvent, { type: T }> => event.type === type);
  }
}

/**
 * The rules every Codex test checks: seq 1..n without gaps, exactly one turn.completed for each
 * turn.started (and none without one), plus the testkit's stream invariants.
 */
export function expectSoundStream(events: readonly ReinsEvent[]): void {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const started = events.filter((event) => event.type === 'turn.started').map((event) => event.turnId);
  const completed = events.filter((event) => event.type === 'turn.completed').map((event) => event.turnId);
  expect(completed).toEqual(started);
  expect(new Set(completed).size).toBe(completed.length);
  expect(streamViolations(events)).toEqual([]);
}

export interface CodexRig {
  server: ModelServer;
  home: HarnessHome;
  tempHome: TempHome;
  workdir: string;
  harness: Harness;
  version: string;
  /** Opens a session on the workdir and starts reading its events. */
  open(
    spec?: Partial<SessionSpec>,
    options?: Partial<CodexHarnessOptions>,
  ): Promise<{ session: Session; log: EventLog }>;
  /** Closes every session and the server, saves the fixture if recording, removes the temp home. */
  cleanup(): Promise<void>;
}

/**
 * A hermetic Codex rig. Set REINS_RECORD_FIXTURES=1 to save each scenario's frames (both directions,
 * Codex version in the header) into fixtures/<scenario>.jsonl.
 */
export async function codexRig(
  scenario: string,
  options: { extraModels?: string[]; harness?: Partial<CodexHarnessOptions> } = {},
): Promise<CodexRig> {
  await assertHermetic();
  const binary = harnessBinary('codex');
  const server = await startModelServer({ strict: true });
  const tempHome = await makeTempHome('reins-codex-');
  const home = await buildCodexHome({
    modelServerUrl: server.url,
    tempHome,
    binary,
    ...(options.extraModels ? { extraModels: options.extraModels } : {}),
  });
  const workdir = join(tempHome.dir, 'work');
  await mkdir(workdir);
  const recorder =
    process.env.REINS_RECORD_FIXTURES === '1'
      ? fixtureRecorder({ harness: 'codex', version: binary.version, scenario })
      : undefined;
  const harnessOptions = (extra: Partial<CodexHarnessOptions> = {}): CodexHarnessOptions => ({
    binaryPath: binary.command,
    baseEnv: home.env,
    requestTimeoutMs: 15_000,
    ...(recorder ? { tap: recorder.tap } : {}),
    ...options.harness,
    ...extra,
  });
  const sessions: Session[] = [];
  const logs: EventLog[] = [];
  return {
    server,
    home,
    tempHome,
    workdir,
    version: binary.version,
    harness: createCodexHarness(harnessOptions()),
    async open(spec = {}, extra = {}) {
      const harness = createCodexHarness(harnessOptions(extra));
      const session = await harness.createSession({ cwd: workdir, ...spec });
      sessions.push(session);
      const log = new EventLog(session.events);
      logs.push(log);
      return { session, log };
    },
    async cleanup() {
      await Promise.all(sessions.map((session) => session.close()));
      await Promise.all(logs.map((log) => log.done));
      await server.close();
      if (recorder) await recorder.save(join(FIXTURES_DIR, `${scenario}.jsonl`));
      await tempHome.cleanup();
    },
  };
}
