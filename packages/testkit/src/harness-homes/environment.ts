// The environment every harness child starts from: EMPTY plus PATH, HOME, TMPDIR and a UTF-8 locale
// (docs/harnesses/hermetic.md). Each builder adds its own keys and switches on top; nothing comes from process.env, so no
// real credential or proxy setting can leak into a harness.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { HarnessBinary } from '../hermetic/binaries.js';
import type { TempHome } from '../hermetic/temp-home.js';

const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

/** The harness's own node (if any) first, then its extra folders, the test runner's node, then the system. */
export function harnessPath(binary: Pick<HarnessBinary, 'nodePath' | 'pathDirs'>): string {
  const dirs = [
    ...(binary.nodePath ? [dirname(binary.nodePath)] : []),
    ...binary.pathDirs,
    dirname(process.execPath),
    ...SYSTEM_PATH,
  ];
  return [...new Set(dirs)].join(':');
}

export function baseEnvironment(
  binary: Pick<HarnessBinary, 'nodePath' | 'pathDirs'>,
  tempHome: Pick<TempHome, 'home' | 'tmp'>,
): Record<string, string> {
  return {
    PATH: harnessPath(binary),
    HOME: tempHome.home,
    TMPDIR: tempHome.tmp,
    LANG: 'C.UTF-8',
    // No colours or TTY-only behaviour in what tests parse.
    NO_COLOR: '1',
    TERM: 'dumb',
  };
}

/** Writes a file, creating its folder; returns the path so builders can list what they wrote. */
export async function writeConfig(path: string, content: string | object): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  return path;
}

/** `[model, ...extraModels]` without duplicates. */
export function modelList(model: string, extraModels: readonly string[] = []): string[] {
  return [...new Set([model, ...extraModels])];
}
