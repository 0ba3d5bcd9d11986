// Background work in stream-json (docs/architecture/contract.md, "Events"): tasks Claude Code keeps
// running after the tool call and the turn that started them. Pure, like translate.ts, whose state it
// extends: which Task calls run in the background, their lanes (what their subagent does carries
// parent_tool_use_id = the Task call's id), and the frames that report on tasks.
//
// Facts (Claude Code 2.1.332, against the scripted model; 2.1.197 ran every subagent in the foreground):
// - A Task call's subagent starts in the background: `system/task_started` with `is_backgrounded: true`
//   and `tool_use_id` = the Task call, then at once the Task's tool_result ("Async agent launched
//   successfully", `tool_use_result.status: "async_launched"`). The main turn's `result` follows while
//   the subagent still works; its tool calls, results and text keep arriving with parent_tool_use_id.
// - `system/task_notification` (status completed | failed | stopped, `summary`) says the task ended:
//   the Task item completes then. Claude Code then starts a main-thread turn by itself to answer the
//   notification (its own system/init and `result`; the notification text is not echoed on stdout).
// - `system/background_tasks_changed` is the level signal: the whole set of live background tasks.
// - A foreground task moved to the background arrives as `task_updated` with `patch.is_backgrounded`.
import { type EventPayload, isSerialisable, type PassthroughReason, type ToolCallItem } from '@reins/core';
import type { EmissionSink } from './sink.js';
import { type BlockState, retainBackgroundLanes, settleTool, type TranslationState } from './state.js';
import type { TaskState } from './task-state.js';
import { sendable } from './values.js';
import type { WireBackgroundTasksChanged, WireTaskNotification, WireTaskStarted, WireTaskUpdated } from './wire.js';

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The frame passed through on the main thread (a task frame has no lane). */
function passthrough(sink: EmissionSink, frame: unknown): true {
  sink.emit({ type: 'passthrough', frame }, undefined, false);
  return true;
}

/** Live background work: the harness's own level signal where it sent one, else the tasks Reins saw start. */
export function liveBackgroundTasks(tasks: TaskState): number {
  return tasks.live?.size ?? tasks.background.size;
}

/** The system frames about tasks (`subtype`: the frame's, as the caller read it), into `sink`; false (nothing emitted) for any other subtype. */
export function translateTaskFrame(
  state: TranslationState,
  frame: JsonObject,
  subtype: unknown,
  sink: EmissionSink,
): boolean {
  switch (subtype) {
    case 'task_started':
      taskStarted(state, frame as unknown as WireTaskStarted, sink);
      return true;
    case 'task_updated': {
      const patch = (frame as unknown as WireTaskUpdated).patch;
      if (isObject(patch) && patch.is_backgrounded === true) {
        const toolUseId = toolOfTask(state, frame.task_id);
        if (toolUseId) {
          markBackground(state, toolUseId, frame.task_id, undefined, sink, undefined);
          return true;
        }
      }
      return passthrough(sink, frame);
    }
    case 'task_notification':
      taskEnded(state, frame as unknown as WireTaskNotification, sink);
      return true;
    case 'background_tasks_changed': {
      const list = (frame as unknown as WireBackgroundTasksChanged).tasks;
      if (!Array.isArray(list)) return passthrough(sink, frame);
      // Ambient tasks are not activity (the SDK's own rule): they keep nothing alive.
      // A loop into the Set rather than filtered and mapped copies (the bench's translate figure).
      const live = new Set<string>();
      for (let index = 0; index < list.length; index++) {
        if (!(index in list)) continue;
        const task: unknown = list[index];
        if (isObject(task) && task.ambient !== true && typeof task.task_id === 'string') live.add(task.task_id);
      }
      state.tasks.live = live;
      const status = liveBackgroundTasks(state.tasks) > 0 ? 'running' : 'idle';
      // The adapter turns this into the session's status (a running turn keeps it running).
      sink.emit({ type: 'session.status', status }, undefined, false);
      return true;
    }
    default:
      return false;
  }
}

/** A task_id's Task call, when Reins knows it. */
function toolOfTask(state: TranslationState, taskId: unknown): string | undefined {
  return typeof taskId === 'string' ? state.tasks.subagents.get(taskId) : undefined;
}

function taskStarted(state: TranslationState, frame: WireTaskStarted, sink: EmissionSink): void {
  const toolUseId = text(frame.tool_use_id);
  const tool = toolUseId ? state.toolCalls?.get(toolUseId) : undefined;
  if (!toolUseId || tool?.kind !== 'tool_call' || tool.tool.kind !== 'subagent') {
    passthrough(sink, frame);
    return;
  }
  const taskId = text(frame.task_id);
  if (taskId) state.tasks.subagents.set(taskId, toolUseId);
  if (frame.is_backgrounded !== true) passthrough(sink, frame);
  else markBackground(state, toolUseId, taskId, text(frame.description), sink, undefined);
}

/**
 * Records a task as running in the background and says so (a notice on `lane`); false when it was
 * known already (nothing emitted).
 */
function markBackground(
  state: TranslationState,
  toolUseId: string,
  taskId: unknown,
  description: string | undefined,
  sink: EmissionSink,
  lane: string | undefined,
): boolean {
  const known = state.tasks.background.get(toolUseId);
  if (known) {
    known.taskId ??= text(taskId);
    return false;
  }
  if (text(taskId)) state.tasks.subagents.set(taskId as string, toolUseId);
  const tool = state.toolCalls?.get(toolUseId);
  const title = description ?? (tool?.kind === 'tool_call' ? tool.tool.title : undefined);
  state.tasks.background.set(toolUseId, {
    toolUseId,
    taskId: text(taskId),
    description: title,
    outlivedTurn: false,
  });
  // Key by key, not a spread of a conditional literal (a slow copy on Node 20: bench/README.md).
  const data: Record<string, unknown> = { toolUseId };
  if (text(taskId)) data.taskId = taskId;
  emitOnLane(
    state,
    sink,
    {
      type: 'notice',
      kind: 'info',
      message: `The subagent${title ? ` "${title}"` : ''} runs in the background; its tool call completes when the task ends.`,
      data,
    },
    lane,
  );
  return true;
}

/**
 * The Task call's own tool_result when its subagent was launched in the background (2.1.332: "Async
 * agent launched successfully", `tool_use_result.status: "async_launched"`): the call does not complete
 * here; what it says goes into `sink` on the result's `lane`. False (nothing emitted) when this result is
 * not such a launch.
 */
export function backgroundLaunch(
  state: TranslationState,
  toolUseId: string,
  structured: unknown,
  frame: unknown,
  sink: EmissionSink,
  lane: string | undefined,
): boolean {
  const launched =
    state.taskState?.background.has(toolUseId) === true ||
    (isObject(structured) && (structured.status === 'async_launched' || structured.isAsync === true));
  if (!launched || state.toolCalls?.get(toolUseId)?.kind !== 'tool_call') return false;
  const agentId = isObject(structured) ? structured.agentId : undefined;
  // The launch text is metadata for the model ("never quote it"): the frame stays visible as it is.
  if (!markBackground(state, toolUseId, agentId, undefined, sink, lane)) emitPassthrough(state, sink, frame, lane);
  return true;
}

const ENDED: Record<WireTaskNotification['status'], ToolCallItem['status']> = {
  completed: 'completed',
  failed: 'failed',
  // Stopped by the harness or the user through it (TaskStop): Claude Code cancelled it, not Reins.
  stopped: 'cancelled',
};

function taskEnded(state: TranslationState, frame: WireTaskNotification, sink: EmissionSink): void {
  const toolUseId = text(frame.tool_use_id) ?? toolOfTask(state, frame.task_id);
  if (typeof frame.task_id === 'string') state.tasks.subagents.delete(frame.task_id);
  const task = toolUseId ? state.tasks.background.get(toolUseId) : undefined;
  const tool = toolUseId ? state.toolCalls?.get(toolUseId) : undefined;
  // Foreground tasks (every task on 2.1.197) end with their tool call's own result; this is a note.
  if (!task || !toolUseId || tool?.kind !== 'tool_call') {
    passthrough(sink, frame);
    return;
  }
  state.tasks.background.delete(toolUseId);
  settleTool(state, toolUseId);
  if (typeof frame.task_id === 'string') state.tasks.live?.delete(frame.task_id);
  // A status this version does not know still ends the task; 'failed' claims no success. Only a string
  // is looked up: a key is made of any other value with its toString, which recurses through nested
  // arrays until the stack runs out (fuzz seed 2821956756, case 103572).
  const status =
    typeof frame.status === 'string' && Object.hasOwn(ENDED, frame.status) ? ENDED[frame.status] : 'failed';
  const summary = typeof frame.summary === 'string' ? frame.summary : '';
  // The harness's own values, cut where they nest too deep to be sent (a status is a word on every
  // version seen, but the frame is foreign: fuzz seed 2609360304, cases 12470 and 38186).
  const structured: Record<string, unknown> = { taskId: sendable(frame.task_id), status: sendable(frame.status) };
  if (isObject(frame.usage) && isSerialisable(frame.usage)) structured.usage = frame.usage;
  // A literal with the stored call's keys (tool-calls.ts startTool), in order: a spread copy that gains a
  // key is slow on Node 20.
  const item: ToolCallItem = {
    kind: 'tool_call',
    id: tool.id,
    status,
    tool: tool.tool,
    input: tool.input,
    output: { text: summary, structured },
  };
  const what = task.description ? `The background task "${task.description}"` : 'A background task';
  state.tasks.ended.push(
    `${what} ${status === 'completed' ? 'completed' : status === 'cancelled' ? 'was stopped' : 'failed'}${summary ? `: ${summary}` : '.'}`,
  );
  sink.emit({ type: 'item.completed', item }, undefined, task.outlivedTurn);
}

/** The launching turn ended (its `result`, or Reins ended it): background work belongs to no turn from now on. */
export function turnEndedForTasks(tasks: TaskState | undefined): void {
  if (tasks) for (const task of tasks.background.values()) task.outlivedTurn = true;
}

/**
 * A payload on its lane into `sink`. What a background task's subagent does once its launching turn has
 * ended (its lane is the Task call's id) is marked background.
 */
export function emitOnLane(
  state: TranslationState,
  sink: EmissionSink,
  payload: EventPayload,
  lane: string | undefined,
): void {
  const tasks = state.taskState;
  const background =
    lane !== undefined &&
    tasks !== undefined &&
    tasks.background.size > 0 &&
    tasks.background.get(lane)?.outlivedTurn === true;
  sink.emit(payload, lane, background);
}

/** A frame passed through (with the reason when Reins did not understand it), on its lane. */
export function emitPassthrough(
  state: TranslationState,
  sink: EmissionSink,
  frame: unknown,
  lane?: string,
  reason?: PassthroughReason,
): void {
  emitOnLane(state, sink, reason ? { type: 'passthrough', frame, reason } : { type: 'passthrough', frame }, lane);
}

/** Items of background work still open: the adapter keeps them open past the turn that is ending. */
export function openBackgroundItems(state: TranslationState): string[] {
  const background = state.taskState?.background;
  if (background === undefined) return [];
  const ids = [...background.keys()];
  const open: BlockState[] = [];
  for (const message of state.messages ?? []) {
    if (!background.has(message.lane)) continue;
    // Object.values: a block index from the wire may be huge (a sparse array), so no walk over indexes.
    for (const block of Object.values(message.blocks)) {
      if (block === undefined) continue;
      // Tool calls and plans stay open until their result; text and reasoning until their full frame.
      const isOpen =
        block.kind === 'tool' || block.kind === 'plan' ? state.toolCalls?.has(block.itemId) === true : !block.completed;
      if (isOpen) open.push(block);
    }
  }
  open.sort((a, b) => a.made - b.made);
  for (const block of open) ids.push(block.itemId);
  return ids;
}

/**
 * The process that ran the background tasks is going away (a restart): the tool calls of background
 * work still open, for the adapter to close, and the tasks forgotten.
 */
export function abandonBackgroundWork(state: TranslationState): ToolCallItem[] {
  const items: ToolCallItem[] = [];
  for (const id of openBackgroundItems(state)) {
    const tool = state.toolCalls?.get(id);
    if (tool?.kind === 'tool_call') items.push(tool);
  }
  state.tasks.background.clear();
  state.tasks.subagents.clear();
  state.tasks.live = undefined;
  retainBackgroundLanes(state);
  return items;
}

/** The sentences on background tasks that ended since the last turn began (and forgets them). */
export function takeEndedTasks(tasks: TaskState): string[] {
  return tasks.ended.splice(0);
}
