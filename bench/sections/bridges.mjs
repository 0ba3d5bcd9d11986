// Figure 9: what the bridges cost (issue 21, item 5): a client of a protocol driving a harness
// through `reins bridge` against the same client on the harness's own server of that protocol.
//   Codex app-server: the bench's raw app-server client (figure 1's `Codex raw app-server` path,
//     bench/lib/rpc.mjs) on `codex app-server`, and the SAME client on
//     `reins bridge codex-app-server -H codex` (launched as a Codex client launches its codex binary:
//     `<bridge> app-server --strict-config`), which runs the same pinned Codex through Reins.
//   ACP: the bench's ACP client (figure 1's `claude-agent-acp` path) on the pinned claude-agent-acp,
//     and the SAME client on `reins bridge acp -H claude-code`, which runs the pinned Claude Code
//     through Reins. (claude-agent-acp runs its own bundled Claude Code, not the same binary.)
// Cold turn: spawn to turn end, the whole handshake included (the bridge's Node start-up too); warm:
// turns 2..N of one session per path, rotating order, as in figures 1-2 (bench/sections/turns.mjs,
// whose paths, homes and cold-turn runner are reused). Every path gets its own hermetic home. Figure 1's
// in-process Reins paths run beside them as a reference, not judged: bridge - in-process is what the
// bridge process itself adds (its Node start, the protocol hop); in-process - raw is the adapter's.
// Plus each bridge with `--daemon` (issue 30, step 2): the same client, the bridge opening its session in
// a daemon of its own (bench/lib/daemon-host.mjs, one warm process of the harness) on the same CLI and
// home; its cold first text against the raw server's and the same bridge's without the daemon (the warm
// process is refilled between its runs while the other paths run).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemonHost } from '../lib/daemon-process.mjs';
import { summarize } from '../lib/stats.mjs';
import { coldTurn, PROMPT_MARK, pathContext, turnPaths } from './turns.mjs';

const now = () => performance.now();

/** The fields after a /proc/<pid>/stat's command name (ppid is [1], utime [11], stime [12]). */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** This process's children now (Linux; none elsewhere). */
function childPids() {
  const pids = [];
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (Number(statFields(name)[1]) === process.pid) pids.push(Number(name));
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    // no /proc
  }
  return pids;
}

/** CPU time (user + system, ms) a process has used, or null when it cannot be read; USER_HZ is 100 on Linux. */
function cpuMs(pid) {
  try {
    const fields = statFields(pid);
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
const rotate = (list, by) => list.map((_, index) => list[(index + by) % list.length]);

/**
 * Spawn to the first byte a bare `node -e` writes, in the bridge's environment: what any bridge written
 * for Node pays before its first line of JavaScript runs, and so before it can start the app-server (on
 * Node 20 this includes reading NODE_EXTRA_CA_CERTS where it is set). The cold floor's one term.
 */
function bareNodeStart(node, env) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(node, ['-e', "process.stdout.write('.')"], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let firstByte;
    child.stdout.once('data', () => {
      firstByte = now() - t0;
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 && firstByte !== undefined ? resolve(firstByte) : reject(new Error(`bare node exited ${code}`)),
    );
  });
}

/** Node 24 from harness-clis, for the Codex bridge's reference run on the Node users run; none if absent. */
function newerNodeThan(current, bundledNodePath) {
  const path = bundledNodePath();
  if (!existsSync(path)) return undefined;
  let version;
  try {
    version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
  return version && version !== current ? { path, version: version.replace(/^v/, '') } : undefined;
}

/**
 * The bridge runs from the CLI's bundle (REINS_BUNDLE=1: even where a `tsc --build` during the run made
 * bin/reins.js prefer dist/), or, for the unbundled reference, from dist/ (REINS_BUNDLE=0).
 */
const withBundle = (launch, bundle) => ({ ...launch, env: { ...launch.env, REINS_BUNDLE: bundle ? '1' : '0' } });

/** The four paths: two of figure 1's, and the same clients on `reins bridge`; the unbundled bridge for reference. */
function bridgePaths(root, newerNode) {
  // BENCH_REINS_BIN: another build's bin/reins.js (a copy of the one before a change), for A/B runs.
  const reins = process.env.BENCH_REINS_BIN || join(root, 'packages/cli/bin/reins.js');
  const figure1 = turnPaths({ loadCodexSdk: async () => ({}) });
  const codexRaw = figure1.find((path) => path.id === 'codex.raw-app-server');
  const acpPeer = figure1.find((path) => path.id === 'claude.acp-peer');
  const library = (id, label) => ({ ...figure1.find((path) => path.id === id), role: 'reference', label });
  const codexBridge = (context, bundle, node = process.execPath) =>
    codexRaw.open({
      ...context,
      launch: {
        ...withBundle(context.launch, bundle),
        command: node,
        args: [
          reins,
          'bridge',
          'codex-app-server',
          '-H',
          'codex',
          '--binary',
          context.binary.command,
          'app-server',
          '--strict-config',
        ],
      },
    });
  return [
    { ...codexRaw, label: 'codex app-server (raw)' },
    library('codex.reins', 'Reins codex in-process (reference)'),
    {
      id: 'codex.bridge',
      harness: 'codex',
      role: 'bridge',
      label: 'reins bridge codex-app-server -H codex',
      open: (context) => codexBridge(context, true),
    },
    {
      id: 'codex.bridge-daemon',
      harness: 'codex',
      role: 'bridge',
      label: 'the same, --daemon (warm daemon)',
      setup: (context, benchDir) => startWarmDaemon('codex', context, benchDir),
      open: (context) =>
        codexRaw.open({
          ...context,
          launch: {
            ...context.launch,
            command: process.execPath,
            args: [reins, 'bridge', 'codex-app-server', '-H', 'codex', '--daemon', 'app-server', '--strict-config'],
            env: { ...context.launch.env, REINS_BUNDLE: '1', REINS_HOME: context.daemonHome },
          },
        }),
    },
    {
      id: 'codex.bridge-unbundled',
      harness: 'codex',
      role: 'reference',
      label: 'the same, unbundled dist/ (reference)',
      open: (context) => codexBridge(context, false),
    },
    ...(newerNode
      ? [
          {
            id: 'codex.bridge-newer-node',
            harness: 'codex',
            role: 'reference',
            label: `the same on Node ${newerNode.version} (reference)`,
            open: (context) => codexBridge(context, true, newerNode.path),
          },
        ]
      : []),
    { ...acpPeer, label: 'claude-agent-acp (ACP)' },
    library('claude.reins', 'Reins claude-code in-process (reference)'),
    {
      id: 'claude.bridge-acp',
      harness: 'claude-code',
      role: 'bridge',
      label: 'reins bridge acp -H claude-code',
      open: (context) =>
        acpPeer.open({
          ...context,
          binary: {
            command: process.execPath,
            args: [
              reins,
              'bridge',
              'acp',
              '-H',
              'claude-code',
              '--binary',
              context.binary.command,
              '-m',
              context.model,
            ],
          },
          launch: { ...withBundle(context.launch, true), home: { ...context.launch.home, args: [] } },
        }),
    },
    {
      id: 'claude.bridge-acp-daemon',
      harness: 'claude-code',
      role: 'bridge',
      label: 'the same, --daemon (warm daemon)',
      setup: (context, benchDir) => startWarmDaemon('claude-code', context, benchDir),
      open: (context) =>
        acpPeer.open({
          ...context,
          binary: {
            command: process.execPath,
            args: [reins, 'bridge', 'acp', '-H', 'claude-code', '--daemon', '-m', context.model],
          },
          launch: {
            ...context.launch,
            env: { ...context.launch.env, REINS_BUNDLE: '1', REINS_HOME: context.daemonHome },
            home: { ...context.launch.home, args: [] },
          },
        }),
    },
  ];
}

/** A daemon of the path's own (its home inside the path's), keeping one `harness` on the path's home warm. */
async function startWarmDaemon(harness, context, benchDir) {
  context.daemonHome = join(context.tempHome.dir, 'reins-daemon');
  return startDaemonHost(benchDir, {
    home: context.daemonHome,
    harnesses: [harness],
    harnessOptions: { [harness]: { binaryPath: context.binary.command, baseEnv: context.launch.env } },
    warm: { [harness]: 1 },
  });
}

/** Bridge / the protocol's own server, per figure: the targets of bench/lib/targets.mjs. */
const PAIRS = [
  { bridge: 'codex.bridge', raw: 'codex.raw-app-server', name: 'codex' },
  { bridge: 'claude.bridge-acp', raw: 'claude.acp-peer', name: 'acp' },
];

export async function run({ quick, log, root }) {
  const { bundledNodePath, reply, startModelServer } = await import('@reins/testkit');
  const newerNode = newerNodeThan(process.version, bundledNodePath);
  const server = await startModelServer();
  server.when(PROMPT_MARK, reply().text('Hello from the bench.').usage({ input: 20, output: 6 }), { persistent: true });
  const coldRuns = quick ? 3 : 7;
  // 39 measured warm turns per path: with 9 the median moved by more than a 10-20% change of the
  // bridge's share, and the CPU figure (10 ms ticks of /proc over the turns) by ~1 ms a turn.
  const warmTurns = quick ? 6 : 40;
  const state = new Map();
  const nodeStarts = [];
  try {
    for (const path of bridgePaths(root, newerNode)) {
      const entry = { path, cold: { first: [], end: [] }, warm: [], errors: [] };
      state.set(path.id, entry);
      try {
        entry.context = await pathContext(path, server.url);
        entry.version = entry.context.binary.version;
        entry.daemon = await path.setup?.(entry.context, join(root, 'bench'));
      } catch (error) {
        entry.errors.push(`setup: ${error.message}`);
      }
    }
    const live = () => [...state.values()].filter((entry) => entry.context && entry.errors.length < 3);

    // Cold: one discarded warm-up run, then the measured runs, in a rotating order.
    for (let runIndex = -1; runIndex < coldRuns; runIndex++) {
      for (const entry of rotate(live(), Math.max(0, runIndex))) {
        try {
          const timing = await coldTurn(entry.path, entry.context, `${PROMPT_MARK} cold ${runIndex}: say hello.`);
          if (runIndex >= 0) {
            entry.cold.first.push(timing.firstMs);
            entry.cold.end.push(timing.endMs);
          }
          log(
            `   cold ${runIndex < 0 ? 'warm-up' : runIndex} ${entry.path.id}: first ${timing.firstMs.toFixed(0)} ms, end ${timing.endMs.toFixed(0)} ms`,
          );
        } catch (error) {
          entry.errors.push(`cold: ${error.message}`);
          log(`   cold ${entry.path.id} FAILED: ${error.message}`);
        }
      }
      const bridgeEnv = state.get('codex.bridge')?.context?.launch.env;
      if (runIndex >= 0 && bridgeEnv)
        nodeStarts.push(await bareNodeStart(process.execPath, bridgeEnv).catch(() => NaN));
    }

    // Warm: one session per path, turn k of every path in turn.
    // A bridge's own CPU per warm turn (turns 2..N, /proc: 10 ms ticks over the turns): what the bridge
    // process adds, without its harness (a child of its own) and less exposed to the load than wall time.
    const open = [];
    for (const entry of live()) {
      try {
        const before = new Set(childPids());
        const session = await entry.path.open(entry.context);
        const spawned = childPids().filter((pid) => !before.has(pid));
        const bridgePid = entry.path.role === 'bridge' || entry.path.id.includes('bridge') ? spawned[0] : undefined;
        open.push({ entry, session, bridgePid });
      } catch (error) {
        entry.errors.push(`warm open: ${error.message}`);
      }
    }
    for (let turn = 1; turn <= warmTurns; turn++) {
      for (const slot of rotate(open, turn)) {
        if (slot.failed) continue;
        try {
          const t0 = now();
          const timing = await slot.session.turn(`${PROMPT_MARK} warm ${turn}: say hello.`);
          slot.entry.warm.push({ firstMs: timing.first - t0, endMs: timing.end - t0 });
          if (slot.bridgePid !== undefined && turn === 1) slot.cpuAfterFirst = cpuMs(slot.bridgePid);
          if (slot.bridgePid !== undefined && turn === warmTurns && Number.isFinite(slot.cpuAfterFirst)) {
            const cpu = cpuMs(slot.bridgePid);
            if (cpu !== null) slot.entry.bridgeCpuMsPerTurn = (cpu - slot.cpuAfterFirst) / (warmTurns - 1);
          }
        } catch (error) {
          slot.failed = true;
          slot.entry.errors.push(`warm turn ${turn}: ${error.message}`);
          log(`   warm ${slot.entry.path.id} FAILED: ${error.message}`);
        }
      }
    }
    for (const slot of open) {
      await slot.session.close().catch((error) => slot.entry.errors.push(`close: ${error.message}`));
      log(`   warm ${slot.entry.path.id}: ${slot.entry.warm.map((turn) => turn.endMs.toFixed(0)).join(' ')} ms`);
    }
  } finally {
    await server.close();
    for (const entry of state.values()) {
      await entry.daemon?.close().catch(() => {});
      await entry.context?.tempHome.cleanup().catch(() => {});
    }
  }

  const out = { coldRuns, warmTurns, paths: {}, ratios: {} };
  for (const entry of state.values()) {
    out.paths[entry.path.id] = {
      label: entry.path.label,
      harness: entry.path.harness,
      version: entry.version,
      cold: { firstTextMs: summarize(entry.cold.first), turnEndMs: summarize(entry.cold.end), samples: entry.cold },
      warm: {
        // Turn 1 pays for what a CLI defers to its first message: left out, as in figure 2.
        turnEndMs: summarize(entry.warm.slice(1).map((turn) => turn.endMs)),
        firstTurnEndMs: entry.warm[0]?.endMs ?? null,
        bridgeCpuMsPerTurn: entry.bridgeCpuMsPerTurn ?? null,
        samples: entry.warm,
      },
      errors: entry.errors,
    };
  }
  for (const { bridge, raw, name } of PAIRS) {
    const of = (id, figure) => out.paths[id]?.[figure].turnEndMs.median ?? null;
    const ms = (id, figure) => (of(id, figure) === null ? null : Math.round(of(id, figure)));
    const ratio = (figure) => {
      const [mine, theirs] = [of(bridge, figure), of(raw, figure)];
      return Number.isFinite(mine) && Number.isFinite(theirs) && theirs > 0 ? Number((mine / theirs).toFixed(3)) : null;
    };
    out.ratios[name] = {
      cold: ratio('cold'),
      warm: ratio('warm'),
      coldMs: [ms(bridge, 'cold'), ms(raw, 'cold')],
      warmMs: [ms(bridge, 'warm'), ms(raw, 'warm')],
    };
    log(
      `   ${name}: bridge / raw cold ${out.ratios[name].cold}x (${out.ratios[name].coldMs.join(' vs ')} ms), warm ${out.ratios[name].warm}x (${out.ratios[name].warmMs.join(' vs ')} ms)`,
    );
  }
  const over = (mine, theirs) => (Number.isFinite(mine) && theirs > 0 ? Number((mine / theirs).toFixed(3)) : null);
  // The Codex bridge's cold floor: the raw cold turn plus a bare Node start, which no bridge in Node can
  // overlap with the app-server's start (its first JavaScript spawns it). The same bridge on a newer Node
  // (the compile cache Node 20 lacks) beside it, not judged.
  const turnEnd = (id, figure) => out.paths[id]?.[figure].turnEndMs.median ?? null;
  const bareStart = summarize(nodeStarts.filter(Number.isFinite));
  const rawCold = turnEnd('codex.raw-app-server', 'cold');
  if (out.ratios.codex) {
    out.ratios.codex.bareNodeStartMs = bareStart.n > 0 ? Math.round(bareStart.median) : null;
    out.ratios.codex.coldFloor = bareStart.n > 0 ? over(rawCold + bareStart.median, rawCold) : null;
    if (newerNode)
      out.ratios.codex.newerNode = {
        version: newerNode.version,
        cold: over(turnEnd('codex.bridge-newer-node', 'cold'), rawCold),
        warm: over(turnEnd('codex.bridge-newer-node', 'warm'), turnEnd('codex.raw-app-server', 'warm')),
      };
    log(
      `   codex: cold floor ${out.ratios.codex.coldFloor ?? 'n/a'}x (a bare Node start ${out.ratios.codex.bareNodeStartMs ?? 'n/a'} ms)${newerNode ? `; on Node ${newerNode.version} cold ${out.ratios.codex.newerNode.cold ?? 'n/a'}x, warm ${out.ratios.codex.newerNode.warm ?? 'n/a'}x` : ''}`,
    );
  }
  // Each bridge through a warm daemon against its raw server's cold start, and against the same bridge
  // without the daemon: to the first text.
  const first = (id) => out.paths[id]?.cold.firstTextMs.median ?? null;
  out.daemon = {};
  for (const [name, viaDaemon, bridge, raw] of [
    ['codex', 'codex.bridge-daemon', 'codex.bridge', 'codex.raw-app-server'],
    ['acp', 'claude.bridge-acp-daemon', 'claude.bridge-acp', 'claude.acp-peer'],
  ]) {
    const ms = [first(viaDaemon), first(bridge), first(raw)];
    out.daemon[name] = {
      coldFirstText: over(ms[0], ms[2]),
      againstBridge: over(ms[0], ms[1]),
      coldFirstTextMs: ms.map((value) => (value === null ? null : Math.round(value))),
    };
    log(
      `   ${name} --daemon: cold first text / raw ${out.daemon[name].coldFirstText}x, / the bridge without it ${out.daemon[name].againstBridge}x (${out.daemon[name].coldFirstTextMs.join(' vs ')} ms)`,
    );
  }
  return { ...out, report: report(out) };
}

function report(out) {
  const cell = (summary) =>
    summary && summary.n > 0
      ? `${summary.median.toFixed(0)} (${summary.min.toFixed(0)}-${summary.max.toFixed(0)})`
      : 'n/a';
  const rows = Object.values(out.paths).map(
    (path) =>
      `  ${path.label.padEnd(40)} cold ${cell(path.cold.turnEndMs).padEnd(20)} warm ${cell(path.warm.turnEndMs).padEnd(16)}${path.warm.bridgeCpuMsPerTurn === null ? '' : ` bridge CPU ${path.warm.bridgeCpuMsPerTurn.toFixed(1)} ms/warm turn`}${path.errors.length > 0 ? ` ${path.errors.length} error(s): ${path.errors[0].slice(0, 60)}` : ''}`,
  );
  const ratios = Object.entries(out.ratios).map(
    ([name, ratio]) =>
      `  ${name.padEnd(6)} bridge / its raw server: cold ${ratio.cold ?? 'n/a'}x, warm ${ratio.warm ?? 'n/a'}x${ratio.coldFloor === undefined ? '' : `; cold floor ${ratio.coldFloor ?? 'n/a'}x (+ a bare Node start, ${ratio.bareNodeStartMs ?? 'n/a'} ms)`}${ratio.newerNode ? `; on Node ${ratio.newerNode.version}: cold ${ratio.newerNode.cold ?? 'n/a'}x, warm ${ratio.newerNode.warm ?? 'n/a'}x` : ''}`,
  );
  const daemon = Object.entries(out.daemon).map(
    ([name, figure]) =>
      `  ${name.padEnd(6)} bridge --daemon (warm daemon), cold first text: / raw ${figure.coldFirstText ?? 'n/a'}x, / the bridge without it ${figure.againstBridge ?? 'n/a'}x (${figure.coldFirstTextMs.join(' vs ')} ms)`,
  );
  return [
    `\n9. Bridges: the same client on reins bridge and on the protocol's own server (turn end, median (min-max) ms; cold n=${out.coldRuns}, warm turns 2-${out.warmTurns})`,
    ...rows,
    ...ratios,
    ...daemon,
    '',
  ].join('\n');
}
