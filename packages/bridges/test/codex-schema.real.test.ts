// Drift test: the Codex JSON Schema the bridge's tests validate against (test/codex-schema/) is what
// the pinned Codex generates today (`codex app-server generate-json-schema`), so every schema check
// judges the bridge by the protocol of the pinned version, whatever it is. Regenerate with
// node packages/testkit/bin/hermetic.mjs -- node packages/bridges/scripts/generate-codex-schema.mjs
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertHermetic, harnessBinary } from '@reins/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { codexSchemaVersion } from './support/codex-schema.js';

const committed = fileURLToPath(new URL('./codex-schema/codex-app-server.schema.json', import.meta.url));

describe('the committed Codex app-server schema', () => {
  let scratch = '';
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('is what the pinned Codex generates', async () => {
    await assertHermetic();
    const binary = harnessBinary('codex');
    expect(codexSchemaVersion()).toBe(binary.version);
    scratch = await mkdtemp(join(tmpdir(), 'reins-codex-schema-'));
    await mkdir(join(scratch, 'home'));
    execFileSync(
      binary.command,
      [...binary.args, 'app-server', 'generate-json-schema', '--out', join(scratch, 'out')],
      {
        env: {
          PATH: [...binary.pathDirs, '/usr/bin', '/bin'].join(':'),
          HOME: scratch,
          CODEX_HOME: join(scratch, 'home'),
        },
        stdio: 'ignore',
        timeout: 60_000,
      },
    );
    const fresh = JSON.parse(
      await readFile(join(scratch, 'out', 'codex_app_server_protocol.schemas.json'), 'utf8'),
    ) as unknown;
    expect(JSON.parse(await readFile(committed, 'utf8'))).toEqual(fresh);
  });
});
