// The targets of issue 10, judged on one run's figures. A target whose figure is missing (a path
// that failed, a section not run) is "n/a", never a pass.
import { ratio } from './stats.mjs';

const judge = (name, value, pass, detail) => ({
  target: name,
  value,
  status: value === null || value === undefined || Number.isNaN(value) ? 'n/a' : pass ? 'pass' : 'miss',
  detail,
});

export function targets(sections) {
  const out = [];
  const paths = sections.turns?.paths ?? {};
  const median = (id, figure) => {
    const path = paths[id];
    if (!path) return null;
    return figure === 'cold' ? path.cold.turnEndMs.median : path.warm.turnEndMs.median;
  };
  for (const [harness, reins, best] of [
    ['Claude', 'claude.reins', 'claude.agent-sdk'],
    ['Codex', 'codex.reins', 'codex.raw-app-server'],
  ]) {
    for (const figure of ['cold', 'warm']) {
      const value = ratio(median(reins, figure), median(best, figure));
      out.push(
        judge(
          `${harness} ${figure} turn: Reins within 5% of ${paths[best]?.label ?? best} (median)`,
          value,
          value <= 1.05,
          `Reins/raw = ${value}`,
        ),
      );
    }
  }
  for (const figure of ['cold', 'warm']) {
    const value = ratio(median('claude.reins', figure), median('claude.acp-peer', figure));
    out.push(
      judge(`Claude ${figure} turn: Reins faster than claude-agent-acp`, value, value < 1, `Reins/ACP = ${value}`),
    );
  }
  const codexWarm = ratio(median('codex.reins', 'warm'), median('codex.sdk-peer', 'warm'));
  out.push(
    judge('Codex warm turn: Reins faster than @openai/codex-sdk', codexWarm, codexWarm < 1, `Reins/SDK = ${codexWarm}`),
  );
  for (const [id, entry] of Object.entries(sections.translate?.adapters ?? {})) {
    out.push(
      judge(
        `Translation ${id}: >= 50% of line-split + JSON.parse`,
        entry.ratio,
        entry.ratio >= 0.5,
        `${(entry.ratio * 100).toFixed(0)}% of the ceiling`,
      ),
    );
  }
  const fast = sections.latency?.rates?.['10000/s'];
  out.push(
    judge(
      'Added latency p99 < 1 ms at 10k frames/s',
      fast?.reinsMicros.p99 ?? null,
      (fast?.reinsMicros.p99 ?? Number.POSITIVE_INFINITY) < 1000,
      fast ? `p99 ${fast.reinsMicros.p99} µs (floor without Reins: ${fast.floorMicros.p99} µs)` : '',
    ),
  );
  for (const [harness, counts] of Object.entries(sections.memory?.harnesses ?? {})) {
    const largest = Object.values(counts).at(-1);
    out.push(
      judge(
        `Memory ${harness}: < 2 MB RSS per idle session`,
        largest?.rssPerSessionMB ?? null,
        largest?.rssPerSessionMB < 2,
        largest ? `${largest.rssPerSessionMB} MB at ${largest.sessions} sessions` : '',
      ),
    );
  }
  return out;
}
