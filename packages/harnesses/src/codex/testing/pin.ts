// Codex's pinned CLI in harness-clis/ (the current and the previous version) and what --version prints.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HarnessPinSpec, linuxCpu, type PackagePlace } from '../../testing.js';

/** The platform package names its binary in codex-package.json (0.169.0, 0.171.0: bin/codex, rg in codex-path/). */
function locateCodex(place: PackagePlace) {
  const triple = linuxCpu === 'arm64' ? 'aarch64-unknown-linux-musl' : 'x86_64-unknown-linux-musl';
  const vendor = join(place.dep(`@openai/codex-linux-${linuxCpu}`), 'vendor', triple);
  const manifestPath = join(vendor, 'codex-package.json');
  const manifest = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as { entrypoint?: string; pathDir?: string })
    : {};
  return {
    command: join(vendor, manifest.entrypoint ?? 'bin/codex'),
    args: [],
    pathDirs: [join(vendor, manifest.pathDir ?? 'codex-path')],
  };
}

export const CODEX_PIN = {
  id: 'codex',
  packageName: '@openai/codex',
  locate: locateCodex,
  previous: {},
  versionOutput: (version) => `codex-cli ${version}`,
} satisfies HarnessPinSpec;
