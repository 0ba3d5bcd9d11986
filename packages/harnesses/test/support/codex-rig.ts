// The Codex real-CLI rig: pinned Codex, hermetic home, scripted model server, optional fixture
// recording. Sessions are read through the testkit's SessionRecorder, whose close() checks the
// stream invariants.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness, Session, SessionSpec } from '@reins/core';
import {
  assertHermetic,
  buildHarnessHome,
  fixtureRecorder,
  type HarnessHome,
  harnessBinary,
  type ModelServer,
  makeTempHome,
  SessionRecorder,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { type CodexHarnessOptions, createCodexHarness } from '../../src/codex/adapter.js';

export const FIXTURES_DIR = fileURLToPath(new URL('../../src/codex/fixtures/', import.meta.url));
/** The default deadline of every wait on a real Codex session. */
const WAIT_MS = 20_000;

export interface CodexRig {
  server: ModelServer;
  home: HarnessHome;
  tempHome: TempHome;
  workdir: string;
  harness: Harness;
  version: string;
  /** Opens a session on the workdir and starts recording its events. */
  open(
    spec?: Partial<SessionSpec>,
    options?: Partial<CodexHarnessOptions>,
  ): Promise<{ session: Session; recorder: SessionRecorder }>;
  /**
   * Closes every session (checking its stream invariants) and the server, saves the fixture if
   * recording, removes the temp home.
   */
  cleanup(): Promise<void>;
}

/**
 * A hermetic Codex rig. Set REINS_RECORD_FIXTURES=1 to save each scenario's frames (both directions,
 * Codex version in the header) into fixtures/<scenario>.<version>.jsonl.
 */
export async function codexRig(
  scenario: string,
  options: { extraModels?: string[]; harness?: Partial<CodexHarnessOptions> } = {},
): Promise<CodexRig> {
  await assertHermetic();
  const binary = harnessBinary('codex');
  const server = await startModelServer({ strict: true });
  const tempHome = await makeTempHome('reins-codex-');
  const home = await buildHarnessHome('codex', {
    modelServerUrl: server.url,
    tempHome,
    binary,
    ...(options.extraModels ? { extraModels: options.extraModels } : {}),
  });
  const workdir = join(tempHome.dir, 'work');
  await mkdir(workdir);
  const fixtures =
    process.env.REINS_RECORD_FIXTURES === '1'
      ? fixtureRecorder({ harness: 'codex', package: binary.packageName, version: binary.version, behaviour: scenario })
      : undefined;
  const harnessOptions = (extra: Partial<CodexHarnessOptions> = {}): CodexHarnessOptions => ({
    binaryPath: binary.command,
    baseEnv: home.env,
    requestTimeoutMs: 15_000,
    ...(fixtures ? { tap: fixtures.tap } : {}),
    ...options.harness,
    ...extra,
  });
  const recorders: SessionRecorder[] = [];
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
      const recorder = new SessionRecorder(session, WAIT_MS);
      recorders.push(recorder);
      return { session, recorder };
    },
    async cleanup() {
      try {
        await SessionRecorder.closeAll(recorders);
      } finally {
        await server.close();
        if (fixtures) await fixtures.saveIn(FIXTURES_DIR);
        await tempHome.cleanup();
      }
    },
  };
}
