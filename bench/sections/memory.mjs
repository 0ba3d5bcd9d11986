// Figure 5: memory of the Reins process per idle session (the harness children are other processes
// and not counted), with 1, 10 and 100 sessions of the codex adapter on an idle fake app-server
// (bench/fakes/codex-idle.sh) and of the claude-code adapter (one Agent SDK query() each) on an idle
// fake claude (bench/fakes/claude-idle.sh). Each count runs in a fresh Node process with --expose-gc: one session
// is opened and closed first (code loaded, JIT warm), then RSS after GC is taken before and after
// opening N sessions; the figure is the difference divided by N.
// The claude-code figure's floor: the same count of the Agent SDK's own query() on the same fake, with
// the options the adapter gives it but none of Reins (the SDK's reader, its transport and one child
// process each), measured the same way in its own fresh process.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const COUNTS = [1, 10, 100];

// The recorded text turns (reins/v1 fixtures, named <behaviour>.<cli-version>.jsonl).
const TEXT_TURN = { codex: 'text-turn.0.169.0.jsonl', 'claude-code': 'text-turn.2.1.197.jsonl' };
const fixtureRows = (root, harness) =>
  readFileSync(join(root, `packages/harnesses/src/${harness}/fixtures/${TEXT_TURN[harness]}`), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    .slice(1);

/** The recorded initialize answers, for the idle fakes. */
function recordedResults(root) {
  const rows = fixtureRows(root, 'codex');
  const resultOf = (method) => {
    const id = rows.find((row) => row.dir === 'in' && row.frame.method === method)?.frame.id;
    return JSON.stringify(
      rows.find((row) => row.dir === 'out' && row.frame.id === id && !row.frame.method)?.frame.result,
    );
  };
  const claudeInit = fixtureRows(root, 'claude-code').find((row) => row.frame?.type === 'control_response')?.frame;
  return {
    BENCH_INIT_RESULT: resultOf('initialize'),
    BENCH_THREAD_RESULT: resultOf('thread/start'),
    BENCH_CLAUDE_INIT: JSON.stringify(claudeInit?.response?.response),
  };
}

/** One count of one kind measured in a fresh `node --expose-gc` (this file as the child, below). */
function measuredIn(env, kind, count) {
  const stdout = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), kind, String(count)], {
    env,
    encoding: 'utf8',
    timeout: 300_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

const perSession = (measured) =>
  `${measured.rssPerSessionMB} MB RSS, ${measured.heapPerSessionMB} MB heap per session (RSS ${measured.baseRssMB} -> ${measured.afterRssMB} MB)`;

export async function run({ quick, log, benchDir, root }) {
  const out = { harnesses: {} };
  const env = { ...process.env, ...recordedResults(root), BENCH_FAKES: join(benchDir, 'fakes') };
  for (const harness of ['codex', 'claude-code']) {
    const counts = {};
    out.harnesses[harness] = counts;
    for (const count of quick ? [1, 10] : COUNTS) {
      counts[count] = measuredIn(env, harness, count);
      log(`   ${harness} ${count} idle session(s): ${perSession(counts[count])}`);
    }
  }
  // The claude-code figure's floor, the Agent SDK alone (100 sessions only: the figure is judged there).
  const floorCount = quick ? 10 : COUNTS.at(-1);
  const floor = measuredIn(env, 'claude-code-sdk', floorCount);
  out.floors = { 'claude-code': floor };
  log(`   the Agent SDK's query() alone, ${floorCount} idle session(s): ${perSession(floor)}`);
  // Issue 21 items 2 and 3 on the pinned Codex: memory shared vs per session, start on a shared
  // app-server, first text on a warm one vs the raw cold path (bench/lib/codex-shared.mjs).
  const { codexShared } = await import('../lib/codex-shared.mjs');
  out.codexShared = await codexShared({ quick, log });
  return out;
}

// ---- the measuring child -------------------------------------------------------------------------

async function settle() {
  for (let index = 0; index < 3; index++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return process.memoryUsage();
}

/** The fakes' environment: the recorded answers they give. */
const fakeEnv = () => ({
  PATH: process.env.PATH,
  BENCH_INIT_RESULT: process.env.BENCH_INIT_RESULT,
  BENCH_THREAD_RESULT: process.env.BENCH_THREAD_RESULT,
  BENCH_CLAUDE_INIT: process.env.BENCH_CLAUDE_INIT,
  // The namespace maps the user to root; Claude's bypass posture wants this then (the fake ignores it).
  IS_SANDBOX: '1',
});

/** `open()` of one idle Reins session of adapter `id`, consumed; resolves to its close. */
async function reinsOpener(id) {
  const { createHarness } = await import('@reins/harnesses');
  const harness = await createHarness(id, {
    binaryPath: join(process.env.BENCH_FAKES, id === 'codex' ? 'codex-idle.sh' : 'claude-idle.sh'),
    baseEnv: fakeEnv(),
  });
  return async () => {
    const session = await harness.createSession({ cwd: process.cwd() });
    const done = (async () => {
      for await (const _event of session.events);
    })();
    return async () => {
      await session.close();
      await done;
    };
  };
}

/**
 * `open()` of one idle Agent SDK query() on the fake claude, with the options the claude-code adapter
 * gives it (claude-code/query.ts) and nothing of Reins: the floor of one query() per session.
 */
async function sdkOpener() {
  const { query } = await import('@anthropic-ai/claude-agent-sdk');
  return async () => {
    let endInput;
    const input = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          new Promise((resolve) => {
            endInput = () => resolve({ done: true, value: undefined });
          }),
      }),
    };
    const sdk = query({
      prompt: input,
      options: {
        pathToClaudeCodeExecutable: join(process.env.BENCH_FAKES, 'claude-idle.sh'),
        cwd: process.cwd(),
        env: fakeEnv(),
        includePartialMessages: true,
        forwardSubagentText: true,
        systemPrompt: { type: 'preset', preset: 'claude_code' },
        mcpServersDelivery: 'argv',
      },
    });
    const done = (async () => {
      for await (const _message of sdk);
    })().catch(() => {});
    await sdk.initializationResult();
    return async () => {
      endInput?.();
      sdk.close();
      await done;
    };
  };
}

async function child(id, count) {
  const open = id === 'claude-code-sdk' ? await sdkOpener() : await reinsOpener(id);
  await (await open())();
  const base = await settle();
  const closers = [];
  for (let index = 0; index < count; index++) closers.push(await open());
  const after = await settle();
  const mb = (bytes) => Number((bytes / 2 ** 20).toFixed(3));
  const result = {
    sessions: count,
    baseRssMB: mb(base.rss),
    afterRssMB: mb(after.rss),
    rssPerSessionMB: mb((after.rss - base.rss) / count),
    heapPerSessionMB: mb((after.heapUsed - base.heapUsed) / count),
    externalPerSessionMB: mb((after.external + after.arrayBuffers - base.external - base.arrayBuffers) / count),
  };
  for (const close of closers) await close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await child(process.argv[2], Number(process.argv[3]));
