// The cluster mode of the daemon on NATS JetStream (docs/architecture/cluster.md).
export {
  EVENTS_STREAM,
  eventMessageId,
  eventSubject,
  MEMBERS_BUCKET,
  PROCESSES_BUCKET,
  SESSIONS_BUCKET,
} from './layout.js';
export {
  CLUSTER_ROLES,
  type ClusterRole,
  DEFAULT_HEARTBEAT_TTL_MS,
  formatLabels,
  type Labels,
  parseClusterUrls,
  parseLabels,
  parseRole,
  redactUrl,
} from './options.js';
export { type ClusterNode, type ClusterOptions, startCluster } from './start.js';
