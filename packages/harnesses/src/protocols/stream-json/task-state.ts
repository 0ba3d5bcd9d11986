// The bookkeeping of background tasks (tasks.ts): a data module of its own, so the translation state
// (state.ts) can hold it and tasks.ts can read that state without the two importing each other.
export interface BackgroundTask {
  /** The Task call's tool_use id: the item, and the lane of what its subagent does. */
  toolUseId: string;
  taskId: string | undefined;
  description: string | undefined;
  /** The turn that launched it has ended: what the task does now belongs to no turn. */
  outlivedTurn: boolean;
}

export interface TaskState {
  /** Background tasks by the Task call's tool_use id, from launch until their task_notification. */
  background: Map<string, BackgroundTask>;
  /** The harness's own level signal (background_tasks_changed): ids of live background tasks; undefined before the first. */
  live: Set<string> | undefined;
  /** Sentences on background tasks that ended since the last turn began: the input of the turn the harness starts to answer them. */
  ended: string[];
  /** task_id -> the Task call of every subagent task still running (a foreground one may move to the background). */
  subagents: Map<string, string>;
}

export function createTaskState(): TaskState {
  return { background: new Map(), live: undefined, ended: [], subagents: new Map() };
}
