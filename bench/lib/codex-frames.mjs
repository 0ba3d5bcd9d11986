// The recorded Codex 0.169.0 frames (codex/fixtures/text-turn.0.169.0.jsonl) that the daemon section's
// burst fake (bench/fakes/codex-burst.sh) answers with, handed over in its environment. The recorded
// thread, turn and item ids become @THREAD@ / @TURN@ / @ITEM@, which the fake replaces so that every
// thread and turn has ids of its own, as from the real app-server (sessions share one app-server).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const RECORDED_TURN = '01a22b18-542b-7190-b9f2-b92c9dee9941';
const RECORDED_ITEM = 'msg_scripted_2';
const RECORDED_THREAD = '01a22b18-53ed-76d1-97a1-d4d77e83ab03';

function recordedRows(root) {
  return readFileSync(join(root, 'packages/harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    .slice(1);
}

/** The burst fake's environment: every frame it writes, and how many text deltas a turn has. */
export function burstFakeEnv(root, deltasPerTurn) {
  const rows = recordedRows(root);
  const out = rows.filter((row) => row.dir === 'out').map((row) => row.frame);
  const find = (predicate, what) => {
    const frame = out.find(predicate);
    if (!frame) throw new Error(`the Codex text-turn fixture has no ${what}`);
    return frame;
  };
  const resultOf = (method) => {
    const id = rows.find((row) => row.dir === 'in' && row.frame.method === method)?.frame.id;
    return find((frame) => frame.id === id && frame.method === undefined, `answer to ${method}`).result;
  };
  const template = (value) =>
    JSON.stringify(value)
      .split(RECORDED_TURN)
      .join('@TURN@')
      .split(RECORDED_ITEM)
      .join('@ITEM@')
      .split(RECORDED_THREAD)
      .join('@THREAD@');
  const agentMessage = (method) => (frame) => frame.method === method && frame.params.item?.type === 'agentMessage';
  const delta = find((frame) => frame.method === 'item/agentMessage/delta', 'text delta');
  const [deltaHead, deltaTail] = template({ ...delta, params: { ...delta.params, delta: '\u0000' } }).split('\\u0000');
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    BENCH_DELTAS: String(deltasPerTurn),
    BENCH_INIT_RESULT: JSON.stringify(resultOf('initialize')),
    BENCH_THREAD_RESULT: template(resultOf('thread/start')),
    BENCH_TURN_RESULT: template(resultOf('turn/start')),
    BENCH_TURN_STARTED: template(find((frame) => frame.method === 'turn/started', 'turn/started')),
    BENCH_ITEM_STARTED: template(find(agentMessage('item/started'), 'agent message start')),
    BENCH_DELTA_HEAD: deltaHead,
    BENCH_DELTA_TAIL: deltaTail,
    BENCH_ITEM_COMPLETED: template(find(agentMessage('item/completed'), 'agent message end')),
    BENCH_TURN_COMPLETED: template(find((frame) => frame.method === 'turn/completed', 'turn/completed')),
  };
}
