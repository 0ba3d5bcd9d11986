// Claude-compatible stream-json: native types and the pure translation to Reins events
// (used by the Claude Code adapter; Amp speaks the same frames).
export {
  abandonBackgroundWork,
  type BackgroundTask,
  liveBackgroundTasks,
  openBackgroundItems,
  type TaskState,
  takeEndedTasks,
  turnEndedForTasks,
} from './tasks.js';
export * from './translate.js';
export type * from './wire.js';
