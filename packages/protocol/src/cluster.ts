// Cluster mode on the wire: the labels that say where a session may run (a single daemon keeps none).
import { z } from 'zod';

/**
 * Where a session may run (cluster mode): every label must be among a worker's `--labels`, e.g.
 * `{ host: "build-3" }` for a workspace that lives on one machine. A single daemon keeps none.
 */
export type SessionLabels = Record<string, string>;
export const SessionLabelsSchema = z.record(z.string().min(1).max(128), z.string().min(1).max(256));
