// Runs git plumbing for checkpoints (docs/architecture/contract.md, "Checkpoints"): the user's own git,
// with the environment cleaned of anything that would point it at another repository or index, no
// pager, no hooks, no automatic gc, and an output cap so a huge diff cannot fill memory.
import { spawn } from 'node:child_process';
import { ReinsError } from '@reins/core';

export interface GitOptions {
  cwd: string;
  /** A private index file; the user's `.git/index` is never written. */
  indexFile?: string;
  /** Bytes of stdout kept; more ends the command and sets `capped` (default 16 MiB). */
  maxOutputBytes?: number;
  /** Written to stdin. */
  input?: string;
  /** A repository git would not find from `cwd`: a folder's private one (snapshot.ts). */
  repo?: { gitDir: string; workTree: string };
}

export interface GitResult {
  stdout: Buffer;
  /** stdout was longer than `maxOutputBytes`; what is kept is its start. */
  capped: boolean;
}

const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;
const IDENTITY = { name: 'Reins', email: 'reins@localhost' };

/** The user's environment without the variables that redirect git (a daemon started from a git hook has them). */
function gitEnvironment(options: GitOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('GIT_')) env[key] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_OPTIONAL_LOCKS = '0';
  env.GIT_AUTHOR_NAME = IDENTITY.name;
  env.GIT_AUTHOR_EMAIL = IDENTITY.email;
  env.GIT_COMMITTER_NAME = IDENTITY.name;
  env.GIT_COMMITTER_EMAIL = IDENTITY.email;
  if (options.indexFile) env.GIT_INDEX_FILE = options.indexFile;
  if (options.repo) {
    env.GIT_DIR = options.repo.gitDir;
    env.GIT_WORK_TREE = options.repo.workTree;
  }
  return env;
}

/** Runs `git <args>`; a non-zero exit rejects with the command and git's own message. */
export function git(args: string[], options: GitOptions): Promise<GitResult> {
  const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const fullArgs = ['-c', 'gc.auto=0', '-c', 'core.hooksPath=/dev/null', '--no-pager', ...args];
  return new Promise((resolve, reject) => {
    const child = spawn('git', fullArgs, {
      cwd: options.cwd,
      env: gitEnvironment(options),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let capped = false;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (capped) return;
      const room = maxOutput - kept;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        kept = maxOutput;
        capped = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => reject(gitError(args, error.message, error)));
    child.on('close', (code) => {
      if (capped || code === 0) resolve({ stdout: Buffer.concat(chunks), capped });
      else reject(gitError(args, stderr.trim() || `exit code ${code}`));
    });
    child.stdin.on('error', () => {}); // git may exit before reading all of stdin
    child.stdin.end(options.input ?? '');
  });
}

function gitError(args: string[], detail: string, cause?: unknown): ReinsError {
  return new ReinsError('protocol_error', `git ${args[0]} failed for a checkpoint: ${detail}`, {
    operation: 'checkpoint',
    ...(cause ? { cause } : {}),
  });
}
