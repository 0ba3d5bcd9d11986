// Checkpoints: each turn's work tree recorded on private git refs, measured, diffed and reverted.
export { type ChangeLimits, DEFAULT_CHANGE_LIMITS, measureChanges } from './changes.js';
export { type CheckpointEntry, CheckpointHistory, checkpointEntries, hasCheckpointRefs } from './history.js';
export { checkpointRef, sessionRefs, turnRef } from './refs.js';
export { checkpointsFor, filesOnly, sessionDiff, sessionRevert } from './session-methods.js';
export { findWorkTree, snapshot, type WorkTree } from './snapshot.js';
export { type CheckpointSink, type ConversationRevert, TurnCheckpoints } from './turn-checkpoints.js';
