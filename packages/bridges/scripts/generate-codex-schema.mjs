#!/usr/bin/env node
// Writes the JSON Schema of the pinned Codex's app-server protocol (`codex app-server
// generate-json-schema`, the one-file bundle) to packages/bridges/test/codex-schema/, where the
// bridge's tests validate every message against it. Run it inside the loopback-only namespace, as
// every real harness CLI runs: node packages/testkit/bin/hermetic.mjs -- node packages/bridges/scripts/generate-codex-schema.mjs
// codex-schema.real.test.ts fails when the committed schema is not the pinned Codex's.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { harnessBinary } from '@reins/testkit';

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, '..', 'test', 'codex-schema');
const binary = harnessBinary('codex');
const work = mkdtempSync(join(tmpdir(), 'reins-codex-schema-'));
try {
  const env = { PATH: [...binary.pathDirs, '/usr/bin', '/bin'].join(':'), HOME: work, CODEX_HOME: join(work, 'home') };
  mkdirSync(env.CODEX_HOME);
  execFileSync(binary.command, [...binary.args, 'app-server', 'generate-json-schema', '--out', join(work, 'out')], {
    env,
    stdio: 'ignore',
  });
  mkdirSync(target, { recursive: true });
  copyFileSync(
    join(work, 'out', 'codex_app_server_protocol.schemas.json'),
    join(target, 'codex-app-server.schema.json'),
  );
  writeFileSync(join(target, 'VERSION'), `codex-cli ${binary.version}\n`);
  process.stdout.write(`wrote the Codex ${binary.version} app-server schema to ${target}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
