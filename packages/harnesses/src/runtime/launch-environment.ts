// The environment as part of a warm or shared process's launch key: two launches whose environments
// differ only in what a library set on Reins' own process.env must find the same processes.

/**
 * Variables a library loaded into Reins' process sets on its process.env, which no harness reads: the
 * Claude Agent SDK sets NoDefaultCurrentDirectoryInExePath=1 when it loads (a Windows cmd.exe switch).
 * In a daemon, every launch after the first Claude Code probe then had another key than the warm and
 * shared processes started before it, and none of them was used again.
 */
const SET_BY_LIBRARIES: ReadonlySet<string> = new Set(['NoDefaultCurrentDirectoryInExePath']);

/** The environment's defined entries in name order, without `leaveOut` and what libraries set. */
export function keyedEnvironment(
  env: Record<string, string | undefined>,
  leaveOut: ReadonlySet<string> = new Set(),
): [string, string][] {
  return Object.entries(env)
    .filter((entry): entry is [string, string] => {
      const [name, value] = entry;
      return value !== undefined && !SET_BY_LIBRARIES.has(name) && !leaveOut.has(name);
    })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
