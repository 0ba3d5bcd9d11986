// The files Codex reads when a thread starts, as one fingerprint (docs/harnesses/codex.md, "What a
// thread reads when it starts"): Codex reads AGENTS.md, its config and its skills at thread/start, not at the first
// turn, so a thread opened ahead may only be handed to a session while none of them changed. Size and
// mtime of each (or its absence), from the cwd up to the root and in CODEX_HOME; no content is read.
import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const PER_FOLDER = ['AGENTS.md', 'AGENTS.override.md', '.codex/config.toml', '.codex/skills', '.git'];
const IN_CODEX_HOME = ['AGENTS.md', 'AGENTS.override.md', 'config.toml', 'skills'];

/** The paths whose change would change what a new thread in `cwd` starts with. */
async function instructionPaths(cwd: string, env: Record<string, string>): Promise<string[]> {
  const paths: string[] = [];
  for (let folder = cwd; ; folder = dirname(folder)) {
    for (const name of PER_FOLDER) paths.push(join(folder, name));
    if (dirname(folder) === folder) break;
  }
  const home = env.CODEX_HOME ?? (env.HOME ? join(env.HOME, '.codex') : undefined);
  if (home) {
    for (const name of IN_CODEX_HOME) paths.push(join(home, name));
    // Each skill's SKILL.md: editing one changes no folder's mtime.
    const skills = await readdir(join(home, 'skills')).catch(() => [] as string[]);
    for (const skill of skills) paths.push(join(home, 'skills', skill, 'SKILL.md'));
  }
  return paths;
}

/** One string that changes when any of those files is created, removed, resized or rewritten. */
export async function instructionsFingerprint(cwd: string, env: Record<string, string>): Promise<string> {
  const paths = await instructionPaths(cwd, env);
  const states = await Promise.all(
    paths.map(async (path) => {
      const found = await stat(path, { bigint: true }).catch(() => undefined);
      // A folder (.git, skills) counts by its presence: its mtime moves with every git command.
      if (!found) return '-';
      return found.isDirectory() ? 'd' : `${found.size}:${found.mtimeNs}`;
    }),
  );
  return states.join('|');
}
