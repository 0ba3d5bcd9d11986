// Version 1 shapes, served to clients that did not ask for version 2 at `initialize`.
import {
  type Assert,
  type Equals,
  type HarnessId,
  HarnessIdSchema,
  SESSION_STATUSES,
  type SessionStatus,
} from '@reins/core';
import { z } from 'zod';
import { type HostedSessionStatus, SubscribeResultSchema } from './sessions.js';

/** Version 1 states: the harness's own lifecycle signal, or `closed`. */
export type V1SessionStatus = SessionStatus | 'closed';
export const V1SessionStatusSchema = z.enum([...SESSION_STATUSES, 'closed']);

/** How a version 2 state reads to a version 1 client (which knows only its four). */
export function v1Status(status: HostedSessionStatus): V1SessionStatus {
  switch (status) {
    case 'starting':
    case 'dormant':
      // No process right now, but a send works (it resumes): to a v1 client that is idle.
      return 'idle';
    case 'lost':
      return 'closed';
    default:
      return status;
  }
}

export interface V1SessionListing {
  sessionId: string;
  harness: HarnessId;
  nativeSessionId?: string;
  status: V1SessionStatus;
  lastSeq: number;
  createdAt: number;
}
export const V1SessionListingSchema = z.object({
  sessionId: z.string(),
  harness: HarnessIdSchema,
  nativeSessionId: z.string().optional(),
  status: V1SessionStatusSchema,
  lastSeq: z.number().int().nonnegative(),
  createdAt: z.number(),
});
type _V1ListingInSync = Assert<Equals<z.output<typeof V1SessionListingSchema>, V1SessionListing>>;

/** The version 1 shape of the same answer. */
export const V1SubscribeResultSchema = SubscribeResultSchema.extend({ status: V1SessionStatusSchema });
