// harness/list remembers each harness's discovery and health (harness-probe.ts ProbeMemory): asked again,
// the daemon starts no CLI; asked by several clients at once, it probes once; a binary replaced on disk
// is probed again. The fake app-server logs every request it gets (FAKE_CODEX_CLIENT_LOG): each health
// check and each sign-in check is one account/read, so the test counts the checks each answer cost. The
// binary is a wrapper script around the fake, so replacing it changes its size and mtime.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyHarnessOptions } from '@reins/harnesses';
import { liveProcessCount } from '@reins/harnesses';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../src/index.js';
import { client, fakeCodexOptions, silent } from './helpers.js';

let folder: string;
let daemon: Daemon | undefined;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-harness-list-'));
});

afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  await expect.poll(() => liveProcessCount(), { timeout: 5_000 }).toBe(0);
  await rm(folder, { recursive: true, force: true });
});

/** A Codex binary that is the fake app-server (a script: replacing it changes size and mtime). */
async function wrappedCodex(binary: string, note: string): Promise<void> {
  await writeFile(binary, `#!/bin/sh\n# ${note}\nexec '${fakeHarnessPath('codex')}' "$@"\n`);
  await chmod(binary, 0o755);
}

/** account/read requests the fake app-servers got so far. */
async function checks(log: string): Promise<number> {
  const lines = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return lines.filter((line) => (JSON.parse(line) as { method?: string }).method === 'account/read').length;
}

describe('harness/list (remembered probes)', () => {
  it('answers a second ask without running the CLI, shares one probe among callers asking together, and probes a replaced binary again', async () => {
    const binary = join(folder, 'codex');
    const log = join(folder, 'client.jsonl');
    await wrappedCodex(binary, 'first build');
    // A recording whose app-server answers account/read (signed out), so both checks succeed.
    const transcript = fileURLToPath(
      new URL('../../harnesses/src/codex/fixtures/auth-login.0.171.0.jsonl', import.meta.url),
    );
    const options = {
      ...fakeCodexOptions('text-turn', { FAKE_CODEX_CLIENT_LOG: log, FAKE_CODEX_TRANSCRIPT: transcript }),
      binaryPath: binary,
    } as AnyHarnessOptions;
    daemon = await startDaemon({
      home: join(folder, 'home'),
      harnesses: ['codex'],
      harnessOptions: { codex: options },
      logger: silent,
      probeTimeoutMs: 8_000,
    });
    const first = await client(daemon.url, daemon.token);
    const second = await client(daemon.url, daemon.token);
    try {
      // Two clients asking at once: one health check and one sign-in check between them.
      const [a, b] = await Promise.all([first.harnesses(), second.harnesses()]);
      expect(a[0]).toMatchObject({ id: 'codex', discovery: { found: true, path: binary } });
      expect(b).toEqual(a);
      expect(await checks(log)).toBe(2);

      // Asked again: the same answer, no check (the sign-in state is reused for a minute anyway).
      expect(await first.harnesses()).toEqual(a);
      expect(await second.harnesses()).toEqual(a);
      expect(await checks(log)).toBe(2);

      // The binary replaced (another size and mtime): its health and its sign-in state (kept per binary)
      // are checked again, once each.
      await wrappedCodex(binary, 'second build, a little longer than the first');
      const again = await first.harnesses();
      expect(again[0]).toMatchObject({ id: 'codex', discovery: { found: true, path: binary } });
      expect(await checks(log)).toBe(4);
      // And remembered again.
      expect(await second.harnesses()).toEqual(again);
      expect(await checks(log)).toBe(4);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
