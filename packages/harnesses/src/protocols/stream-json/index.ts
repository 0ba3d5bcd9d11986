// Claude-compatible stream-json: native types and the pure translation to Reins events
// (used by the Claude Code adapter; Amp speaks the same frames).
export type { BackgroundTask, TaskState } from './task-state.js';
export {
  abandonBackgroundWork,
  liveBackgroundTasks,
  openBackgroundItems,
  takeEndedTasks,
  turnEndedForTasks,
} from './tasks.js';
export * from './translate.js';
export type * from './wire.js';
