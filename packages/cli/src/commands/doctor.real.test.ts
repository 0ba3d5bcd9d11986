// `reins doctor --json` (the built CLI) with the pinned real Codex and Claude Code (versions from harness-clis) on
// PATH, inside the loopback-only namespace, with the testkit's hermetic homes pointed at the scripted model
// server. Where this build has an adapter for the harness, its health (auth) check must say ready with the
// fake keys; without one, doctor still finds the binary and its version from discovery alone.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assertHermetic,
  buildHarnessHome,
  harnessBinary,
  type ModelServer,
  makeTempHome,
  pinnedVersion,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorReport } from './doctor.js';

const BIN = fileURLToPath(new URL('../../bin/reins.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

let server: ModelServer;
let home: TempHome;
let env: Record<string, string>;

beforeAll(async () => {
  await assertHermetic();
  if (!existsSync(BUILT)) throw new Error(`The CLI is not built (${BUILT} is missing): run \`npx tsc -b\` first.`);
  server = await startModelServer();
  home = await makeTempHome('reins-doctor-real-');
  const codex = await buildHarnessHome('codex', { modelServerUrl: server.url, tempHome: home });
  const claude = await buildHarnessHome('claude-code', { modelServerUrl: server.url, tempHome: home });
  const pinned = [harnessBinary('codex').command, harnessBinary('claude-code').command].map((path) => dirname(path));
  env = {
    ...codex.env,
    ...claude.env,
    PATH: [...pinned, codex.env.PATH ?? '', claude.env.PATH ?? ''].join(':'),
    REINS_HOME: join(home.dir, 'reins'),
  };
});

afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

function runDoctor(args: string[], runEnv = env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'doctor', ...args], { env: runEnv, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('reins doctor with the pinned CLIs', () => {
  it('finds the pinned codex and claude-code on PATH', async () => {
    const { code, stdout, stderr } = await runDoctor(['--json', 'codex', 'claude-code']);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as DoctorReport;
    const expected = { codex: harnessBinary('codex'), 'claude-code': harnessBinary('claude-code') };
    expect(expected.codex.version).toBe(pinnedVersion('codex'));
    expect(expected['claude-code'].version).toBe(pinnedVersion('claude-code'));
    for (const entry of report.harnesses) {
      const pinned = expected[entry.id as keyof typeof expected];
      expect(entry.discovery).toMatchObject({
        found: true,
        binary: {
          path: pinned.command,
          version: pinned.version,
          source: 'path',
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      });
      if (entry.adapter) {
        // The adapter's own auth probe, with the fake key of the hermetic home.
        expect(entry.health.status, entry.health.message).toBe('ready');
        expect(entry.capabilities?.resume.implemented.state).toBe('yes');
      } else {
        // Discovery only: the version probe answered; auth was not checked.
        expect(entry.health).toMatchObject({ status: 'ready', message: expect.stringContaining('No adapter') });
      }
      expect(entry.capabilities?.resume.observed.state).toBe('unknown'); // an empty evidence store
    }
    expect(report.harnesses.map((h) => h.id)).toEqual(['codex', 'claude-code']);
  });

  // codex-acp 0.16.0 (the previous pin, a native binary on PATH) refuses --version: doctor shows the
  // version its ACP initialize answer names.
  it("shows codex-acp's version from initialize", async () => {
    const acpHome = await makeTempHome('reins-doctor-codex-acp-');
    try {
      const binary = harnessBinary('codex-acp', undefined, 'previous');
      const built = await buildHarnessHome('codex-acp', { modelServerUrl: server.url, tempHome: acpHome, binary });
      const acpEnv = {
        ...built.env,
        PATH: [dirname(binary.command), built.env.PATH ?? ''].join(':'),
        REINS_HOME: join(acpHome.dir, 'reins'),
      };
      const { code, stdout, stderr } = await runDoctor(['--json', 'codex-acp'], acpEnv);
      expect(code, stderr).toBe(0);
      const [entry] = (JSON.parse(stdout) as DoctorReport).harnesses;
      expect(entry?.discovery).toMatchObject({
        found: true,
        binary: { path: binary.command, version: pinnedVersion('codex-acp', 'previous'), source: 'path' },
      });
      expect(entry?.health.status, entry?.health.message).toBe('ready');
    } finally {
      await acpHome.cleanup();
    }
  });

  // Only the real Codex proves its sandbox confines here. Its state and REINS_HOME (where the probe runs)
  // are outside /tmp: Codex's workspace-write lets commands write /tmp, and it keeps no helper there.
  it("says Codex can take the workspace posture: its sandbox stopped the probe's write beside its cwd", async () => {
    const cache = fileURLToPath(new URL('../../../../node_modules/.cache', import.meta.url));
    await mkdir(cache, { recursive: true });
    const state = await mkdtemp(join(cache, 'reins-doctor-real-postures-'));
    try {
      await mkdir(join(state, 'codex'));
      const runEnv = { ...env, CODEX_HOME: join(state, 'codex'), REINS_HOME: join(state, 'reins') };
      const { code, stdout, stderr } = await runDoctor(['--json', 'codex'], runEnv);
      expect(code, stderr).toBe(0);
      const [entry] = (JSON.parse(stdout) as DoctorReport).harnesses;
      expect(entry?.postures).toEqual({
        bypass: { state: 'yes' },
        ask: { state: 'yes' },
        workspace: { state: 'yes', holds: { writesConfined: true, toolsNetworkOff: true } },
      });
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });
});
