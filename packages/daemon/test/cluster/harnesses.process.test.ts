// A worker remembers its harnesses' discovery and health (harness-probe.ts ProbeMemory), as a local
// daemon does: every harness/list a gateway answers asks each worker (cluster/harnesses), and before
// it each one started the CLI again (Codex: an app-server and its account/read). The fake app-server
// logs every request it gets (FAKE_CODEX_CLIENT_LOG), so the test counts the worker's checks.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCodexOptions } from '../helpers.js';
import { ClusterRig } from './rig.js';

let rig: ClusterRig | undefined;
afterEach(async () => {
  await rig?.dispose();
  rig = undefined;
});

async function checks(log: string): Promise<number> {
  const lines = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return lines.filter((line) => (JSON.parse(line) as { method?: string }).method === 'account/read').length;
}

describe('cluster/harnesses', () => {
  it('a worker answers a second harness/list without starting the CLI again', async () => {
    rig = await ClusterRig.start();
    const log = join(await rig.folder('logs'), 'client.jsonl');
    // A recording whose app-server answers account/read (signed out), so the health check succeeds.
    const transcript = fileURLToPath(
      new URL('../../../harnesses/src/codex/fixtures/auth-login.0.171.0.jsonl', import.meta.url),
    );
    const codex = fakeCodexOptions('text-turn', { FAKE_CODEX_CLIENT_LOG: log, FAKE_CODEX_TRANSCRIPT: transcript });
    await rig.node({ role: 'worker', harnesses: ['codex'], harnessOptions: { codex }, probeTimeoutMs: 8_000 });
    const gateway = await rig.node({ role: 'gateway' });
    const client = await rig.client(gateway);

    const first = await client.harnesses();
    expect(first.find((listing) => listing.id === 'codex')).toMatchObject({ discovery: { found: true } });
    const afterFirst = await checks(log);
    expect(afterFirst).toBeGreaterThan(0);
    expect(await client.harnesses()).toEqual(first);
    expect(await client.harnesses()).toEqual(first);
    expect(await checks(log)).toBe(afterFirst);
  }, 60_000);
});
