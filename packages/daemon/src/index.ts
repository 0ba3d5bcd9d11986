// @reins/daemon: the local Reins daemon, sessions over WebSocket (protocol: @reins/client).
export { type Daemon, type DaemonOptions, LOOPBACK_HOST, startDaemon } from './daemon.js';
export { daemonFilePath, readDaemonFile } from './daemon-file.js';
export { DEFAULT_EVENT_BUFFER_SIZE, EventBuffer } from './event-buffer.js';
export { createLogger, type LogFields, type Logger, type LogLevel } from './logger.js';
