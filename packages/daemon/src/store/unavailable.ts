// The error of a store that cannot write (a full disk, an I/O error): one sentence the user can act
// on, used for the session's `error` event and for the `session/send` it refuses, and the one a
// daemon that cannot start for want of room fails with (docs/architecture/daemon.md, "A store that
// cannot write").
import { ReinsError } from '@reins/core';
import { sqliteFailure } from './sqlite-driver.js';

export function storeUnavailableError(location: string, cause: unknown): ReinsError {
  if (ReinsError.isInstance(cause) && cause.code === 'store_unavailable') return cause;
  const failure = sqliteFailure(cause);
  const why =
    failure === 'full'
      ? 'its disk is full'
      : failure === 'io'
        ? 'the disk reported an I/O error'
        : `it refused a write (${(cause as Error | undefined)?.message ?? String(cause)})`;
  const fix =
    failure === 'io'
      ? 'check that disk (dmesg), then send again'
      : 'free space on that disk (or move $REINS_HOME to a disk with room), then send again';
  return new ReinsError(
    'store_unavailable',
    `Reins cannot record this session in its store ${location}: ${why}. Nothing new is sent to the harness until it can: ${fix}; no restart is needed.`,
    { operation: 'store', retryable: true, data: { location, failure }, cause },
  );
}

/** A daemon start that failed because `path`'s disk is full, as one sentence; undefined for any other failure. */
export function noRoomToStartError(path: string, cause: unknown): ReinsError | undefined {
  const errno = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (sqliteFailure(cause) !== 'full' && errno !== 'ENOSPC' && errno !== 'EDQUOT') return undefined;
  return new ReinsError(
    'store_unavailable',
    `The Reins daemon cannot start: the disk holding ${path} is full. Free space on that disk (or move $REINS_HOME to a disk with room), then start it again.`,
    { operation: 'store', retryable: true, data: { location: path, failure: 'full' }, cause },
  );
}
