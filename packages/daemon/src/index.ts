// @reins/daemon: the local Reins daemon, sessions over WebSocket (protocol: @reins/protocol), kept in a
// store so that they survive restarts and crashes.
export {
  CLUSTER_ROLES,
  type ClusterNode,
  type ClusterOptions,
  type ClusterRole,
  DEFAULT_HEARTBEAT_TTL_MS,
  EVENTS_STREAM,
  eventMessageId,
  eventSubject,
  formatLabels,
  type Labels,
  MEMBERS_BUCKET,
  PROCESSES_BUCKET,
  parseClusterUrls,
  parseLabels,
  parseRole,
  redactUrl,
  SESSIONS_BUCKET,
  startCluster,
} from './cluster/index.js';
export { type Daemon, type DaemonOptions, LOOPBACK_HOST, STORE_FILE, startDaemon } from './daemon.js';
export { daemonFilePath, readDaemonFile } from './daemon-file.js';
export { DEFAULT_EVENT_BUFFER_SIZE, EventBuffer } from './event-buffer.js';
export { chooseEvictions, type EvictionCandidate, type EvictionLimits } from './eviction.js';
export { createLogger, LOG_LEVELS, type LogFields, type Logger, type LogLevel, silentLogger } from './logger.js';
export type { SessionDirectory, SessionHandle, SessionSource, SessionSourceFactory } from './session-directory.js';
export type { HarnessFactory } from './session-host.js';
export { MemoryStore } from './store/memory-store.js';
export { MIGRATIONS, SCHEMA_VERSION } from './store/migrations.js';
export { type RepairReport, repairStore } from './store/repair.js';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite-store.js';
export type {
  DaemonStore,
  LoadedSession,
  ProcessGroupRecord,
  SessionPatch,
  StoredSession,
  StoredSessionState,
} from './store/store.js';
