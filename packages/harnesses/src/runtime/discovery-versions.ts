// A binary's version probe (`<binary> --version`, or a spec's own versionProbe), asked once per file:
// every Reins process (a bridge, `reins run`) asked it again before its first frame (Codex 0.3-0.45 s
// under load). An answer is remembered in this process and on disk in Reins' cache folder
// (version-probes.json), keyed by the file's identity (binary-hashes.ts: real path, device, inode, size,
// mtime, ctime: an upgrade misses), the probe's arguments and a digest of the environment it runs in
// (a script's `#!/usr/bin/env node` depends on PATH, a wrapper or an ACP agent answering its version in
// `initialize` may read any variable; the digest is kept, never the text). A client that starts its
// bridge again with the same environment hits. Probes of one key running at once share one process.
//
// A probe that did NOT answer is remembered only in this process, and only for FAILED_PROBE_MEMORY_MS:
// one command asks for the same binary several times (discover, health, session start), and a probe
// that hangs cost its whole deadline each time (9-11 s of 10 under load). Not longer, and never on disk,
// because a failure is usually of the moment (a timeout under load, a slow first run after install, a
// file system that was busy): a remembered one would report a binary unhealthy that answers now, in
// every later process, with nothing to tell the user why.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isRecord } from '@reins/core';
import { fileIdentity, fileIdentityKey, RememberedFacts } from './binary-hashes.js';
import { keyedEnvironment } from './launch-environment.js';

export const VERSION_PROBES_FILE = 'version-probes.json';
/** How long this process keeps a probe that did not answer (ms); see above. */
export const FAILED_PROBE_MEMORY_MS = 60_000;

export interface ProbeAnswer {
  /** It exited 0 within the deadline. */
  answered: boolean;
  version?: string;
  /** Why it did not answer: timeout, exit code and stderr tail, spawn error. */
  error?: string;
}

/**
 * Reins' cache folder (rebuildable files only): $REINS_HOME/cache, else the platform's cache folder.
 * bin/reins.js puts V8's compile cache under the same folder (it cannot import this module: it runs
 * before any of Reins loads).
 */
export function reinsCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.REINS_HOME) return join(env.REINS_HOME, 'cache');
  const base =
    env.XDG_CACHE_HOME ||
    (process.platform === 'win32' ? env.LOCALAPPDATA : undefined) ||
    join(env.HOME || homedir(), process.platform === 'darwin' ? 'Library/Caches' : '.cache');
  return join(base, 'reins');
}

const isAnswer = (value: unknown): value is { version?: string } =>
  isRecord(value) && (value.version === undefined || typeof value.version === 'string');

interface Remembered {
  probe: Promise<ProbeAnswer>;
  /** Set once the probe did not answer: when this process forgets it. */
  forgetAt?: number;
}
const inProcess = new Map<string, Remembered>();

/**
 * The probe's answer for `path` with `args` under `env`: this process's, else the cache folder's, else
 * `probe()` run now (and remembered). An unreadable file is probed every time (the probe says why).
 */
export async function rememberedVersionProbe(
  path: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  probe: () => Promise<ProbeAnswer>,
): Promise<ProbeAnswer> {
  let key: string;
  try {
    const file = await fileIdentity(path);
    const environment = createHash('sha256')
      .update(JSON.stringify(keyedEnvironment(env)))
      .digest('hex');
    key = [fileIdentityKey(file), environment, ...args].join('\u0000');
  } catch {
    return probe();
  }
  const known = inProcess.get(key);
  if (known && (known.forgetAt === undefined || Date.now() < known.forgetAt)) return known.probe;
  const remembered: Remembered = { probe: lookUpOrRun(key, probe) };
  inProcess.set(key, remembered);
  let answer: ProbeAnswer;
  try {
    answer = await remembered.probe;
  } catch (error) {
    if (inProcess.get(key) === remembered) inProcess.delete(key); // a prober that threw: ask again next time
    throw error;
  }
  if (!answer.answered) remembered.forgetAt = Date.now() + FAILED_PROBE_MEMORY_MS;
  return answer;
}

async function lookUpOrRun(key: string, probe: () => Promise<ProbeAnswer>): Promise<ProbeAnswer> {
  // Where the cache folder is comes from Reins' own environment (as the hashes'), not the harness's.
  const facts = new RememberedFacts(join(reinsCacheDir(), VERSION_PROBES_FILE), isAnswer);
  const stored = await facts.get(key);
  if (stored) return { answered: true, ...(stored.version !== undefined ? { version: stored.version } : {}) };
  const answer = await probe();
  if (answer.answered) await facts.set(key, answer.version !== undefined ? { version: answer.version } : {});
  return answer;
}
