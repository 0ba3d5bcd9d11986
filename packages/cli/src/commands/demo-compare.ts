// What `reins demo` checked, lane by lane (pure): each lane's normalized stream against the script (turn
// outcomes, the replies, the command's output, the file on disk) and against the other lanes (the item kinds of
// each turn, in order). The demo prints exactly these results, so its verdict never claims more than it checked.
import type { Item, ReinsEvent } from '@reins/core';

/** What the demo's script makes every lane do. */
export interface DemoScript {
  /** The scripted final reply of each turn, in order. */
  replies: string[];
  /** Text the scripted shell command prints. */
  commandOutput: string;
  /** What the file the last turn writes must hold. */
  fileContent: string;
  fileName: string;
}

export interface LaneEvidence {
  id: string;
  events: readonly ReinsEvent[];
  /** The written file's content after the session, or undefined when it is not on disk. */
  file: string | undefined;
}

export interface LaneComparison {
  id: string;
  matched: string[];
  differed: string[];
}

/** The item kinds of each turn, in order (a tool call with its tool kind): `reasoning, agent_message`. */
export function itemKindsByTurn(events: readonly ReinsEvent[]): string[] {
  const turns: string[][] = [];
  for (const event of events) {
    if (event.type === 'turn.started') turns.push([]);
    if (event.type === 'item.completed' && event.item.kind !== 'user_message') {
      turns.at(-1)?.push(kindOf(event.item));
    }
  }
  return turns.map((kinds) => kinds.join(', '));
}

function kindOf(item: Item): string {
  return item.kind === 'tool_call' ? `tool_call(${item.tool.kind})` : item.kind;
}

/** Each turn's last agent message (trimmed), '' when the turn had none. */
function repliesByTurn(events: readonly ReinsEvent[]): string[] {
  const replies: string[] = [];
  for (const event of events) {
    if (event.type === 'turn.started') replies.push('');
    if (event.type === 'item.completed' && event.item.kind === 'agent_message' && replies.length > 0) {
      replies[replies.length - 1] = event.item.text.trim();
    }
  }
  return replies;
}

const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text);

/** The most common value (ties: the first seen), or undefined with fewer than two lanes to compare. */
function consensus(values: string[]): string | undefined {
  if (values.length < 2) return undefined;
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
}

export function compareLanes(lanes: readonly LaneEvidence[], script: DemoScript): LaneComparison[] {
  const kinds = lanes.map((lane) => itemKindsByTurn(lane.events));
  const turnCount = script.replies.length;
  const usual = Array.from({ length: turnCount }, (_, turn) => consensus(kinds.map((lane) => lane[turn] ?? '')));
  return lanes.map((lane, index) => {
    const result: LaneComparison = { id: lane.id, matched: [], differed: [] };
    const check = (name: string, differences: string[]) => {
      if (differences.length === 0) result.matched.push(name);
      else result.differed.push(`${name}: ${differences.join('; ')}`);
    };
    const outcomes = lane.events.flatMap((event) => (event.type === 'turn.completed' ? [event.outcome.status] : []));
    const expectedOutcomes = script.replies.map(() => 'completed');
    check('turn outcomes', outcomes.join(', ') === expectedOutcomes.join(', ') ? [] : [outcomes.join(', ') || 'none']);

    const replies = repliesByTurn(lane.events);
    check(
      'replies',
      script.replies.flatMap((expected, turn) =>
        replies[turn] === expected
          ? []
          : [`turn ${turn + 1} said ${quote(replies[turn] ?? '')}, not ${quote(expected)}`],
      ),
    );

    const shown = lane.events.some(
      (event) =>
        event.type === 'item.completed' &&
        event.item.kind === 'tool_call' &&
        event.item.tool.kind === 'command' &&
        (event.item.output?.text ?? '').includes(script.commandOutput),
    );
    check('command output', shown ? [] : [`no command's output shows ${quote(script.commandOutput)}`]);

    const file =
      lane.file === undefined
        ? [`${script.fileName} is not on disk`]
        : lane.file === script.fileContent
          ? []
          : [`${script.fileName} holds ${quote(lane.file)}`];
    check(`${script.fileName} on disk`, file);

    if (usual.some((kinds) => kinds !== undefined)) {
      const own = kinds[index] ?? [];
      check(
        'item kinds',
        usual.flatMap((expected, turn) =>
          expected === undefined || own[turn] === expected
            ? []
            : [`turn ${turn + 1} had ${own[turn] || 'none'} where the others had ${expected || 'none'}`],
        ),
      );
    }
    return result;
  });
}
