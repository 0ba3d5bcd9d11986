// Figure 8d: the daemon's memory while a harness streams a large output (issue 25, Build step 1:
// "within a small multiple of the largest single frame"). A daemon in its own process
// (bench/lib/daemon-host.mjs) hosts one session on the burst fake (bench/fakes/codex-burst.sh), whose
// turns write text deltas of `frame` bytes each as fast as the pipe takes them, `total` bytes in
// `turns` turns (one agent message each); one @reins/client in this process reads every event. A
// first round of the same turns warms the process (code, JIT, V8's young generation) and fills the
// session's in-memory tail; after GC the daemon is measured, its peak reset, the measured round run,
// and the daemon measured after GC again. Each case runs twice, in two fresh daemons: once for the
// RSS peak (the kernel's VmHWM: what the machine saw, V8's uncollected garbage included) and once with
// the host collecting garbage every 10 ms for the live peak (heap used + external: what the daemon
// holds). What the session holds after streaming (its tail) is the heap after the warm round against
// the heap before it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { burstFakeEnv } from '../lib/codex-frames.mjs';
import { connectTo, startDaemonHost } from '../lib/daemon-process.mjs';
import { deadline } from '../lib/rpc.mjs';

const MiB = 2 ** 20;
const KiB = 1024;
const mb = (bytes) => Number((bytes / MiB).toFixed(2));

/** One case in a fresh daemon: the measures before and after the warm round, and after the measured one. */
async function measuredRounds({ benchDir, root }, frame, total, turns, hostEnv) {
  const home = await mkdtemp(join(tmpdir(), 'reins-bench-stream-'));
  const deltas = Math.round(total / frame / turns);
  const host = await startDaemonHost(
    benchDir,
    {
      home,
      harnesses: ['codex'],
      idleTtlMs: 0,
      harnessOptions: {
        codex: {
          binaryPath: join(benchDir, 'fakes/codex-burst.sh'),
          baseEnv: {
            ...burstFakeEnv(root, deltas),
            BENCH_DELTA_PAD: 'x'.repeat(KiB),
            BENCH_DELTA_PAD_REPEAT: String(Math.round(frame / KiB)),
          },
        },
      },
    },
    hostEnv,
  );
  const client = await connectTo(host);
  try {
    const session = await client.createSession('codex', { cwd: home });
    const events = session.events[Symbol.asyncIterator]();
    let largestEvent = 0;
    const turn = async () => {
      const { turnId } = await session.send('stream');
      let received = 0;
      await deadline(
        (async () => {
          for (;;) {
            const { value, done } = await events.next();
            if (done) throw new Error('the session ended during the streamed turn');
            if (value.type === 'item.delta') {
              received++;
              largestEvent = Math.max(largestEvent, JSON.stringify(value).length);
            }
            if (value.type === 'turn.completed' && value.turnId === turnId) return;
          }
        })(),
        300_000,
        'the streamed turn',
      );
      if (received !== deltas) throw new Error(`the client got ${received} of ${deltas} deltas`);
    };
    const round = async () => {
      for (let index = 0; index < turns; index++) await turn();
    };
    const before = await host.measure();
    await round();
    const base = await host.measure();
    await host.resetPeak();
    await round();
    const after = await host.measure();
    return { before, base, after, largestEvent };
  } finally {
    client.close();
    await host.close();
    await rm(home, { recursive: true, force: true });
  }
}

/** `total` bytes in frames of `frame` bytes over `turns` turns: the daemon's memory figures. */
export async function streamed(context, frame, total, turns) {
  const rss = await measuredRounds(context, frame, total, turns, {});
  const live = await measuredRounds(context, frame, total, turns, { BENCH_HOST_LIVE_SAMPLE_MS: '10' });
  const largestEvent = rss.largestEvent;
  const rssPeak = rss.after.vmHwm - rss.base.vmRss;
  const livePeak = live.after.livePeak - (live.base.heapUsed + live.base.external);
  return {
    frameKiB: frame / KiB,
    totalMiB: mb(total),
    turns,
    largestEventKiB: Number((largestEvent / KiB).toFixed(1)),
    baseRssMB: mb(rss.base.vmRss),
    rssPeakGrowthMB: mb(rssPeak),
    livePeakGrowthMB: mb(livePeak),
    livePeakPerLargestEvent: Number((livePeak / largestEvent).toFixed(1)),
    livePeakPerTotal: Number((livePeak / total).toFixed(3)),
    rssPeakPerTotal: Number((rssPeak / total).toFixed(3)),
    // What the session holds once it has streamed (its tail), and what a round left behind.
    heldAfterStreamMB: mb(live.base.heapUsed - live.before.heapUsed),
    leftAfterRoundMB: mb(live.after.heapUsed - live.base.heapUsed),
  };
}

/**
 * The cases: one frame size at two totals (the memory must not follow the total), bigger frames,
 * and the whole output as one agent message (core's SessionEventStream keeps an open message's
 * text until it completes, so that it can close it: that one follows the total).
 */
export function streamCases(quick) {
  return quick
    ? [
        [64 * KiB, 16 * MiB, 16],
        [64 * KiB, 48 * MiB, 48],
        [64 * KiB, 16 * MiB, 1],
      ]
    : [
        [64 * KiB, 32 * MiB, 32],
        [64 * KiB, 96 * MiB, 96],
        [1024 * KiB, 96 * MiB, 24],
        [64 * KiB, 32 * MiB, 1],
      ];
}

const describe = (c) => `${c.frameKiB} KiB frames, ${c.totalMiB} MiB in ${c.turns} turn${c.turns === 1 ? '' : 's'}`;

function report(cases) {
  return [
    '\n8d. Daemon memory while a harness streams a large output (daemon process; growth during the measured round)',
    ...cases.map(
      (c) =>
        `  ${describe(c).padEnd(36)} live peak +${c.livePeakGrowthMB} MB (${c.livePeakPerLargestEvent}x the largest event of ${c.largestEventKiB} KiB, ${c.livePeakPerTotal}x the output); RSS peak +${c.rssPeakGrowthMB} MB (${c.rssPeakPerTotal}x); held after streaming ${c.heldAfterStreamMB} MB`,
    ),
    '',
  ].join('\n');
}

export async function run({ quick, log, benchDir, root }) {
  const cases = [];
  for (const [frame, total, turns] of streamCases(quick)) {
    const result = await streamed({ benchDir, root }, frame, total, turns);
    log(
      `   ${describe(result)}: live peak +${result.livePeakGrowthMB} MB, RSS peak +${result.rssPeakGrowthMB} MB (base ${result.baseRssMB} MB), held after streaming ${result.heldAfterStreamMB} MB`,
    );
    cases.push(result);
  }
  return { cases, report: report(cases) };
}
