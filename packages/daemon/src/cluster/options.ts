// What `reins daemon --cluster ...` takes, checked and parsed (pure): the NATS url(s), the role
// of this process, a worker's labels, and the heartbeat deadline. Bad input is invalid_input with
// a sentence that says what to type instead.
import { ReinsError } from '@reins/core';

export const CLUSTER_ROLES = ['gateway', 'worker', 'all'] as const;
export type ClusterRole = (typeof CLUSTER_ROLES)[number];

export type Labels = Record<string, string>;

/** A worker that misses heartbeats this long is gone (default). */
export const DEFAULT_HEARTBEAT_TTL_MS = 10_000;
export const MIN_HEARTBEAT_TTL_MS = 1_000;

const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;
const LABEL_VALUE = /^[^\s,=]{1,256}$/;

/**
 * `nats://host:port` (several: comma-separated, members of one NATS cluster). A user and password
 * may be in the url; `redactUrl` hides the password wherever the url is shown.
 */
export function parseClusterUrls(value: string): string[] {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) {
    throw new ReinsError('invalid_input', '--cluster needs a NATS url, e.g. --cluster nats://127.0.0.1:4222.');
  }
  for (const part of parts) {
    let url: URL;
    try {
      url = new URL(part);
    } catch {
      throw new ReinsError(
        'invalid_input',
        `--cluster: "${redactUrl(part)}" is not a url; write nats://HOST:PORT, e.g. nats://127.0.0.1:4222.`,
      );
    }
    if (url.protocol !== 'nats:' || url.hostname === '' || url.port === '' || url.pathname.replace('/', '') !== '') {
      throw new ReinsError(
        'invalid_input',
        `--cluster: "${redactUrl(part)}" is not nats://HOST:PORT (scheme nats, a host and a port, nothing after them).`,
      );
    }
  }
  return parts;
}

/** The url with its password (if any) replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(/^(\w+:\/\/[^:@/]+):[^@/]*@/, '$1:***@');
}

export function parseRole(value: string | undefined): ClusterRole {
  if (value === undefined) return 'all';
  if ((CLUSTER_ROLES as readonly string[]).includes(value)) return value as ClusterRole;
  throw new ReinsError('invalid_input', `--role must be one of ${CLUSTER_ROLES.join(', ')}, got "${value}".`);
}

/** `key=value,key2=value2` -> { key: value, key2: value2 }. */
export function parseLabels(value: string | undefined): Labels {
  const labels: Labels = {};
  if (value === undefined || value.trim() === '') return labels;
  for (const pair of value.split(',')) {
    const at = pair.indexOf('=');
    const key = (at < 0 ? pair : pair.slice(0, at)).trim();
    const label = at < 0 ? '' : pair.slice(at + 1).trim();
    if (!LABEL_KEY.test(key) || !LABEL_VALUE.test(label)) {
      throw new ReinsError(
        'invalid_input',
        `--labels: "${pair.trim()}" is not key=value (a key of letters, digits, . _ / -; a value without spaces, commas or =), e.g. --labels host=build-3,gpu=yes.`,
      );
    }
    if (key in labels) throw new ReinsError('invalid_input', `--labels names "${key}" twice.`);
    labels[key] = label;
  }
  return labels;
}

/** Whether `offered` (a worker's labels) has every label in `wanted` (a session's). */
export function labelsMatch(wanted: Labels | undefined, offered: Labels): boolean {
  return Object.entries(wanted ?? {}).every(([key, value]) => offered[key] === value);
}

export function formatLabels(labels: Labels | undefined): string {
  const entries = Object.entries(labels ?? {});
  return entries.length === 0 ? '(none)' : entries.map(([key, value]) => `${key}=${value}`).join(',');
}

/** How often a member beats, for a deadline `ttlMs`: five beats per deadline. */
export function heartbeatIntervalMs(ttlMs: number): number {
  return Math.max(200, Math.floor(ttlMs / 5));
}

export function checkHeartbeatTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs < MIN_HEARTBEAT_TTL_MS) {
    throw new ReinsError(
      'invalid_input',
      `--heartbeat-ttl must be at least ${MIN_HEARTBEAT_TTL_MS / 1000} s (a worker that misses heartbeats that long is gone), got ${ttlMs} ms.`,
    );
  }
  return ttlMs;
}
