// `reins doctor` as users run it: the BUILT CLI (`npx tsc -b` first; `npm test` builds) in a subprocess,
// with fake harness executables on PATH, behind REINS_<ID>_BIN and in ~/.local/bin of a temp HOME, and a
// temp REINS_HOME holding evidence for one fingerprint.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { harnessManifest } from '@reins/harnesses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorReport } from './doctor.js';

const BIN = fileURLToPath(new URL('../../bin/reins.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
/** The pinned harness CLIs of this checkout (npm run setup), when installed. */
const HARNESS_CLIS = fileURLToPath(new URL('../../../../harness-clis/node_modules', import.meta.url));

let root: string;
let env: Record<string, string>;
let codexSha: string;

async function fake(path: string, script: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o755);
}

function runDoctor(
  args: string[],
  withEnv: Record<string, string> = env,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'doctor', ...args], { env: withEnv, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error(`The CLI is not built (${BUILT} is missing): run \`npx tsc -b\` first.`);
  root = await mkdtemp(join(tmpdir(), 'reins-doctor-'));
  const bin = join(root, 'bin');
  const home = join(root, 'home');
  await fake(join(bin, 'codex'), 'echo "codex-cli 0.169.0"');
  await fake(join(bin, 'qwen'), 'echo "qwen: cannot find module ./cli.js" >&2; exit 3');
  await fake(join(root, 'elsewhere', 'my-claude'), 'echo "2.1.197 (Claude Code)"');
  await fake(join(home, '.local', 'bin', 'gemini'), 'echo 0.61.0');
  codexSha = createHash('sha256')
    .update(await readFile(join(bin, 'codex')))
    .digest('hex');
  const reinsHome = join(root, 'reins');
  await mkdir(reinsHome);
  const evidence = (capability: string, sha256: string, passed = true) =>
    JSON.stringify({
      harness: 'codex',
      check: `conformance: ${capability}`,
      capability,
      passed,
      binary: { path: join(bin, 'codex'), version: '0.169.0', sha256 },
      harnessVersion: '0.169.0',
      reinsVersion: '0.1.0',
      at: 1_700_000_000_000,
    });
  await writeFile(
    join(reinsHome, 'evidence.jsonl'),
    [
      evidence('resume', codexSha),
      // Another binary (a different sha256) passed interrupt: it must not count as observed here.
      evidence('interrupt', 'f'.repeat(64)),
      'not json at all',
      '',
    ].join('\n'),
  );
  // No SHELL: the login shell is not asked. npm_config_prefix keeps npm's global bin inside the temp dir.
  env = {
    PATH: bin,
    HOME: home,
    REINS_HOME: reinsHome,
    REINS_CLAUDE_CODE_BIN: join(root, 'elsewhere', 'my-claude'),
    npm_config_prefix: join(root, 'npm-prefix'),
  };
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

const SYSTEM_DIRS = ['/usr/local/bin', '/opt/homebrew/bin', '/home/linuxbrew/.linuxbrew/bin'];

describe('reins doctor --json', () => {
  it('reports every known harness with where its binary was found, its version and health', async () => {
    const { code, stdout, stderr } = await runDoctor(['--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as DoctorReport;
    expect(report.reinsVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(report.harnesses.map((h) => h.id)).toEqual([
      'claude-code',
      'codex',
      'gemini',
      'qwen-code',
      'copilot',
      'opencode',
      'claude-agent-acp',
      'codex-acp',
      'hermes',
      'pi',
      'openclaw',
      'amp',
      'acp',
    ]);
    const byId = Object.fromEntries(report.harnesses.map((h) => [h.id, h]));

    expect(byId.codex?.discovery).toMatchObject({
      found: true,
      binary: { path: join(root, 'bin', 'codex'), version: '0.169.0', source: 'path', sha256: codexSha },
    });
    expect(byId['claude-code']?.discovery).toMatchObject({
      found: true,
      binary: { path: join(root, 'elsewhere', 'my-claude'), version: '2.1.197', source: 'env' },
    });
    expect(byId.gemini?.discovery).toMatchObject({
      found: true,
      binary: { path: join(root, 'home', '.local', 'bin', 'gemini'), version: '0.61.0', source: 'known_location' },
    });
    // A binary that fails is found but unhealthy, with its stderr (from the version probe, or from the
    // adapter's own start when this build has one).
    expect(byId['qwen-code']?.discovery.found).toBe(true);
    expect(byId['qwen-code']?.health).toMatchObject({
      status: 'unhealthy',
      message: expect.stringContaining('exited with code 3'),
    });
    for (const id of ['hermes', 'amp'] as const) {
      if (SYSTEM_DIRS.some((dir) => existsSync(join(dir, id)))) continue; // installed system-wide on this machine
      expect(byId[id]?.discovery).toMatchObject({ found: false, hint: expect.stringContaining('REINS_') });
      expect(byId[id]?.health.status).toBe('not_installed');
      expect(byId[id]?.capabilities).toBeUndefined();
    }
    expect(byId.acp?.discovery.found).toBe(false);
    for (const entry of report.harnesses) {
      expect(typeof entry.adapter).toBe('boolean');
      if (!entry.adapter && entry.discovery.found && entry.health.status === 'ready') {
        expect(entry.health.message).toContain('No adapter in this build');
      }
    }
  });

  it('observed comes only from evidence for the same sha256; unreadable lines are reported', async () => {
    const report = JSON.parse((await runDoctor(['--json', 'codex', 'claude-code'])).stdout) as DoctorReport;
    expect(report.harnesses.map((h) => h.id)).toEqual(['codex', 'claude-code']);
    const codex = report.harnesses[0]?.capabilities;
    expect(codex?.resume.observed.state).toBe('yes');
    expect(codex?.resume.observed.evidence?.[0]?.binary.sha256).toBe(codexSha);
    expect(codex?.interrupt.observed.state).toBe('unknown');
    expect(codex?.interrupt.testedVersions).toEqual(['0.169.0']); // a passing check of 0.169.0 on another binary
    const claude = report.harnesses[1]?.capabilities;
    expect(claude?.resume.observed.state).toBe('unknown');
    // The versions Reins is tested on are a field of their own; the matrix's stay local evidence only.
    const pinned = harnessManifest('codex')?.testedVersions ?? [];
    expect(pinned.length).toBeGreaterThan(0);
    expect(report.harnesses[0]?.reinsTestedVersions).toEqual([...pinned]);
    expect(report.harnesses[1]?.reinsTestedVersions).toEqual([
      ...(harnessManifest('claude-code')?.testedVersions ?? []),
    ]);
    expect(codex?.resume.testedVersions).toEqual(['0.169.0']);
    expect(claude?.resume.testedVersions).toEqual([]);
    expect(report.evidence).toMatchObject({
      path: join(root, 'reins', 'evidence.jsonl'),
      records: 2,
      skipped: [{ line: 3, reason: 'not JSON' }],
    });
  });

  it('prints a plain table when stdout is not a terminal', async () => {
    const { code, stdout } = await runDoctor([]);
    expect(code).toBe(0);
    expect(stdout).not.toContain('\x1b[');
    expect(stdout).toMatch(/^codex\s+(yes|no)\s+\S.*0\.169\.0\s+PATH\s+\S*\/bin\/codex$/m);
    expect(stdout).toMatch(/^claude-code\s+.*2\.1\.197\s+REINS_\*_BIN\s/m);
    expect(stdout).toMatch(/^qwen-code: unhealthy: .*exited with code 3/m);
    expect(stdout).toContain('1 unreadable line(s) skipped (3)');
    const pinned = (harnessManifest('codex')?.testedVersions ?? []).join(', ');
    expect(stdout).toMatch(
      /^codex 0\.169\.0 sha256 \w+\n {2}Reins is tested on: (.+) \(this binary is one of them\)$/m,
    );
    expect(stdout).toContain(`Reins is tested on: ${pinned} (this binary is one of them)`);
    expect(stdout).toMatch(/^TESTED VERSIONS: the versions that passed a check on this machine/m);
  });

  it('says when the binary found is not a version Reins is tested on, and when a harness has none', async () => {
    const old = join(root, 'old', 'codex');
    await fake(old, 'echo "codex-cli 0.1.0"');
    const { stdout } = await runDoctor(['codex'], { ...env, REINS_CODEX_BIN: old });
    const pinned = (harnessManifest('codex')?.testedVersions ?? []).join(', ');
    expect(stdout).toContain(`Reins is tested on: ${pinned} (this binary, 0.1.0, is not)`);
    const acp = JSON.parse((await runDoctor(['--json', 'acp'])).stdout) as DoctorReport;
    expect(acp.harnesses[0]?.reinsTestedVersions).toEqual([]);
  });

  // The checkout's pinned copies (npm run setup) are for the tests and the demo: doctor never reports them as
  // installed, and says so when they are all it could find.
  it.skipIf(!existsSync(HARNESS_CLIS))('says when it found only the pinned test copies in harness-clis/', async () => {
    const { code, stdout } = await runDoctor(['copilot', 'codex']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^copilot +\S+ +not installed/m);
    expect(stdout).toContain('Found only the pinned test copies in harness-clis/ for copilot: those are for');
    const json = JSON.parse((await runDoctor(['--json', 'copilot', 'codex'])).stdout) as DoctorReport;
    expect(json.testCopiesOnly).toEqual(['copilot']); // codex is found on PATH (the fake), so it is not listed
  });

  it('refuses an unknown harness id with exit code 2', async () => {
    const { code, stderr } = await runDoctor(['nope']);
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown harness "nope"');
  });
});

describe('reins doctor with binaries that fail their version probe', () => {
  // Every harness's executable name, each a stub that cannot run: what Amp's npm package installs when its
  // platform binary is missing ("Amp native binary not installed", exit 1).
  const NAMES = {
    'claude-code': 'claude',
    codex: 'codex',
    gemini: 'gemini',
    'qwen-code': 'qwen',
    copilot: 'copilot',
    opencode: 'opencode',
    'claude-agent-acp': 'claude-agent-acp',
    'codex-acp': 'codex-acp',
    hermes: 'hermes',
    pi: 'pi',
    openclaw: 'openclaw',
    amp: 'amp',
  } as const;
  let stubRoot: string;
  let stubEnv: Record<string, string>;

  beforeAll(async () => {
    stubRoot = await mkdtemp(join(tmpdir(), 'reins-doctor-stubs-'));
    const bin = join(stubRoot, 'bin');
    for (const name of Object.values(NAMES)) {
      await fake(join(bin, name), `echo "${name} native binary not installed" >&2; exit 1`);
    }
    await mkdir(join(stubRoot, 'home'));
    stubEnv = {
      PATH: bin,
      HOME: join(stubRoot, 'home'),
      REINS_HOME: join(stubRoot, 'reins'),
      npm_config_prefix: join(stubRoot, 'npm-prefix'),
    };
  });
  afterAll(async () => {
    if (stubRoot) await rm(stubRoot, { recursive: true, force: true });
  });

  it('reports every one found but unhealthy, with the probe message and what to run', async () => {
    const { code, stdout, stderr } = await runDoctor(['--json'], stubEnv);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const byId = Object.fromEntries((JSON.parse(stdout) as DoctorReport).harnesses.map((h) => [h.id, h]));
    for (const [id, name] of Object.entries(NAMES)) {
      const path = join(stubRoot, 'bin', name);
      expect(byId[id]?.discovery, id).toMatchObject({ found: true, binary: { path, source: 'path' } });
      expect(byId[id]?.health, id).toMatchObject({ status: 'unhealthy', binary: { path } });
      // codex-acp has no --version: its own probe (ACP initialize) fails in its own words.
      if (id !== 'codex-acp') {
        expect(byId[id]?.health.message, id).toContain(`exited with code 1: ${name} native binary not installed`);
        expect(byId[id]?.health.fix, id).toContain(`${path} --version`);
      }
    }
  });

  it('the table says why, per harness', async () => {
    const { stdout } = await runDoctor(['amp', 'pi', 'openclaw'], stubEnv);
    expect(stdout).toMatch(/^amp\s+yes\s+unhealthy\s+-\s+PATH\s/m);
    expect(stdout).toMatch(/^amp: unhealthy: .*exited with code 1: amp native binary not installed$/m);
    expect(stdout).toMatch(/^pi: unhealthy: .*pi native binary not installed$/m);
    expect(stdout).toMatch(/^openclaw: unhealthy: .*openclaw native binary not installed$/m);
  });
});

describe('reins doctor postures', () => {
  // Under the checkout, not /tmp: Codex's workspace-write lets commands write /tmp, so doctor's Codex probe
  // needs a REINS_HOME outside it (doctor-postures.ts).
  let postureRoot: string;
  let postureEnv: Record<string, string>;
  const tools = () => join(postureRoot, 'sandbox-tools');

  beforeAll(async () => {
    const cache = fileURLToPath(new URL('../../../../node_modules/.cache', import.meta.url));
    await mkdir(cache, { recursive: true });
    postureRoot = await mkdtemp(join(cache, 'reins-doctor-postures-'));
    const bin = join(postureRoot, 'bin');
    // A codex whose `sandbox` runs the command (sh -c ...) unconfined, and one whose sandbox cannot start.
    await fake(
      join(bin, 'codex'),
      'if [ "$1" = sandbox ]; then shift 5; exec /bin/sh "$@"; fi; echo "codex-cli 0.171.0"',
    );
    await fake(
      join(postureRoot, 'broken', 'codex'),
      'if [ "$1" = sandbox ]; then echo "bwrap: execvp codex-linux-sandbox: No such file or directory" >&2; exit 1; fi; echo "codex-cli 0.171.0"',
    );
    await fake(join(bin, 'claude'), 'echo "2.1.332 (Claude Code)"');
    await fake(join(bin, 'pi'), 'echo 0.73.1');
    await fake(join(tools(), 'bwrap'), 'exit 0');
    await fake(join(tools(), 'socat'), 'exit 0');
    await mkdir(join(postureRoot, 'home'));
    postureEnv = {
      PATH: bin,
      HOME: join(postureRoot, 'home'),
      REINS_HOME: join(postureRoot, 'reins'),
      npm_config_prefix: join(postureRoot, 'npm-prefix'),
    };
  });
  afterAll(async () => {
    if (postureRoot) await rm(postureRoot, { recursive: true, force: true });
  });

  async function postures(ids: string[], withEnv: Record<string, string>) {
    const { code, stdout, stderr } = await runDoctor(['--json', ...ids], withEnv);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as DoctorReport;
    return Object.fromEntries(report.harnesses.map((h) => [h.id, h.postures]));
  }

  it('workspace: Claude Code needs bwrap and socat on PATH; Pi needs bwrap for Reins to confine it', async () => {
    const without = await postures(['claude-code', 'pi'], postureEnv);
    expect(without['claude-code']).toEqual({
      bypass: { state: 'yes' },
      ask: { state: 'yes' },
      workspace: { state: 'no', reason: expect.stringContaining('needs bwrap and socat on PATH') },
    });
    expect(without.pi).toEqual({
      bypass: { state: 'yes' },
      ask: { state: 'no', reason: expect.stringContaining('no approvals') },
      workspace: { state: 'no', reason: expect.stringContaining('apt install bubblewrap') },
    });
    const withTools = await postures(['claude-code'], { ...postureEnv, PATH: `${postureEnv.PATH}:${tools()}` });
    expect(withTools['claude-code']?.workspace).toEqual({
      state: 'yes',
      holds: { writesConfined: true, toolsNetworkOff: true },
    });
    // A bwrap that runs nothing: the probe's write inside never lands.
    const inert = await postures(['pi'], { ...postureEnv, PATH: `${postureEnv.PATH}:${tools()}` });
    expect(inert.pi?.workspace).toEqual({ state: 'no', reason: 'bubblewrap did not run a command here.' });
  });

  it.runIf(existsSync('/usr/bin/bwrap'))(
    "workspace: Reins' confinement of Pi stops the probe's write beside its cwd; the tools' network stays",
    async () => {
      const real = join(postureRoot, 'real-bwrap');
      await mkdir(real, { recursive: true });
      await symlink('/usr/bin/bwrap', join(real, 'bwrap')).catch(() => {});
      const confined = await postures(['pi'], { ...postureEnv, PATH: `${postureEnv.PATH}:${real}` });
      expect(confined.pi?.workspace).toEqual({ state: 'yes', holds: { writesConfined: true, toolsNetworkOff: false } });
      expect((await readdir(postureEnv.REINS_HOME as string)).filter((name) => name.startsWith('doctor-'))).toEqual([]);
    },
  );

  it("workspace: Codex's sandbox must run a probe and stop its write outside the cwd", async () => {
    const unconfined = await postures(['codex'], postureEnv);
    expect(unconfined.codex?.workspace).toEqual({
      state: 'no',
      reason: "Codex's sandbox ran a command but did not stop its write outside the cwd.",
    });
    const broken = await postures(['codex'], { ...postureEnv, REINS_CODEX_BIN: join(postureRoot, 'broken', 'codex') });
    expect(broken.codex?.workspace).toEqual({
      state: 'no',
      reason:
        "Codex's sandbox did not run a command here: bwrap: execvp codex-linux-sandbox: No such file or directory",
    });
    // The probe leaves nothing behind in REINS_HOME.
    expect((await readdir(postureEnv.REINS_HOME as string)).filter((name) => name.startsWith('doctor-'))).toEqual([]);
  });

  it('the table has a postures line per found harness', async () => {
    const { stdout } = await runDoctor(['pi', 'claude-code'], postureEnv);
    expect(stdout).toMatch(
      /^ {2}postures here: bypass yes, ask no \(.+\), workspace no \(.+apt install bubblewrap.+\)$/m,
    );
    expect(stdout).toMatch(/^ {2}postures here: bypass yes, ask yes, workspace no \(.*bwrap and socat.*\)$/m);
  });
});
