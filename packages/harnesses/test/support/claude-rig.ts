// Shared by the Claude Code tests: fixture paths, the fake CLI, and the real-CLI rig (either pin of
// harness-clis, hermetic home, scripted Anthropic server, optional fixture recording with REINS_RECORD_FIXTURES=1).
// Sessions are read through the testkit's SessionRecorder, whose close() checks the stream invariants.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness, Session, SessionSpec } from '@reins/core';
import {
  assertHermetic,
  buildHarnessHome,
  fakeHarnessPath,
  fixtureRecorder,
  type HarnessBinary,
  type HarnessHome,
  type HarnessPin,
  harnessBinary,
  type ModelServer,
  makeTempHome,
  SessionRecorder,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { type ClaudeCodeHarnessOptions, createClaudeCodeHarness } from '../../src/claude-code/adapter.js';

export const FIXTURES_DIR = fileURLToPath(new URL('../../src/claude-code/fixtures/', import.meta.url));
export const FAKE_CLAUDE = fakeHarnessPath('claude-code');
/** The default deadline of every wait on a real Claude Code session. */
const WAIT_MS = 30_000;

export interface ClaudeRig {
  server: ModelServer;
  home: HarnessHome;
  tempHome: TempHome;
  binary: HarnessBinary;
  workdir: string;
  harness: Harness;
  harnessOptions(extra?: Partial<ClaudeCodeHarnessOptions>): ClaudeCodeHarnessOptions;
  /** Opens a session on the workdir and starts recording its events. */
  open(
    spec?: Partial<SessionSpec>,
    options?: Partial<ClaudeCodeHarnessOptions>,
  ): Promise<{ session: Session; recorder: SessionRecorder }>;
  /** Records a session opened some other way (a resume through a fresh harness), closed with the rest. */
  record(session: Session): SessionRecorder;
  /** Closes every recorded session (checking its stream invariants) and the server, saves the fixture. */
  cleanup(): Promise<void>;
}

/** A hermetic Claude Code rig on the pinned CLI against the scripted Anthropic server. */
export async function claudeRig(
  scenario: string,
  options: { strict?: boolean; pin?: HarnessPin } = {},
): Promise<ClaudeRig> {
  await assertHermetic();
  const binary = harnessBinary('claude-code', undefined, options.pin ?? 'current');
  const server = await startModelServer({ strict: options.strict ?? false });
  const tempHome = await makeTempHome('reins-cc-');
  const home = await buildHarnessHome('claude-code', { modelServerUrl: server.url, tempHome, binary });
  const workdir = join(tempHome.dir, 'work');
  await mkdir(workdir);
  const fixtures =
    process.env.REINS_RECORD_FIXTURES === '1'
      ? fixtureRecorder({
          harness: 'claude-code',
          package: binary.packageName,
          version: binary.version,
          behaviour: scenario,
        })
      : undefined;
  const recorders: SessionRecorder[] = [];
  const record = (session: Session) => {
    const recorder = new SessionRecorder(session, WAIT_MS);
    recorders.push(recorder);
    return recorder;
  };
  const harnessOptions = (extra: Partial<ClaudeCodeHarnessOptions> = {}): ClaudeCodeHarnessOptions => ({
    binaryPath: binary.command,
    baseEnv: home.env,
    requestTimeoutMs: 30_000,
    ...(fixtures ? { tap: fixtures.tap } : {}),
    ...extra,
  });
  const harness = createClaudeCodeHarness(harnessOptions());
  /** Stops the server, saves the fixture (machine paths out) if recording, removes the temp home. */
  const saveAndRemove = async () => {
    await server.close();
    if (fixtures) {
      const path = await fixtures.saveIn(FIXTURES_DIR);
      // Machine paths out, so fixtures are stable and say nothing about the recording machine.
      const text = (await readFile(path, 'utf8')).split(tempHome.dir).join('<tmp>').split(server.url).join('<server>');
      await writeFile(path, text);
    }
    await tempHome.cleanup();
  };
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
      return { session, recorder: record(session) };
    },
    record,
    async cleanup() {
      try {
        await SessionRecorder.closeAll(recorders);
      } finally {
        await saveAndRemove();
      }
    },
  };
}
