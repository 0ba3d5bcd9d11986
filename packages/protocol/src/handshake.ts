// The handshake of the daemon's wire protocol: versions, the daemon file a client finds the daemon by,
// `initialize` and the optional wire features negotiated there, and the close codes.
import { type Assert, type Equals, type HarnessId, HarnessIdSchema } from '@reins/core';
import { z } from 'zod';

/** The newest protocol version this package speaks. */
export const PROTOCOL_VERSION = 2;
/** Every version a daemon of this package can serve (negotiated at `initialize`). */
export const SUPPORTED_PROTOCOL_VERSIONS = [1, 2] as const;
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/**
 * WebSocket close codes the daemon uses, so a client can tell why it was dropped.
 * 1008 policy: auth failed or no initialize in time; 1009 a frame over the size limit (64 KiB
 * before initialize); 1013 the client did not read its answers and events fast enough (reconnect
 * and resubscribe with afterSeq); 1001 the daemon is shutting down.
 */
export const CLOSE_CODES = { goingAway: 1001, policy: 1008, tooBig: 1009, slowConsumer: 1013 } as const;

/** The file a running daemon writes under $REINS_HOME (default ~/.reins), mode 0600. */
export const DAEMON_FILE = 'daemon.json';

export interface DaemonInfo {
  /** ws://127.0.0.1:<port> */
  url: string;
  pid: number;
  /** The secret every connection passes to `initialize`; new on each start. */
  token: string;
  protocolVersion: number;
  /** ms since epoch. */
  startedAt: number;
}
export const DaemonInfoSchema = z.object({
  url: z.string().min(1),
  pid: z.number().int().positive(),
  token: z.string().min(1),
  protocolVersion: z.number().int().positive(),
  startedAt: z.number(),
});
type _DaemonInfoInSync = Assert<Equals<z.output<typeof DaemonInfoSchema>, DaemonInfo>>;

export interface ClientInfo {
  name: string;
  version: string;
}
/**
 * Optional features of the wire a client asks for at `initialize` (version 2); the daemon answers
 * the ones it granted. Unknown keys are ignored (a newer client may ask for more), and a client
 * that asks for nothing gets the version 2 wire unchanged.
 */
export interface ClientCapabilities {
  /**
   * The client takes `session/events` (many events of one session in one notification): the
   * daemon then sends a replay that way instead of one `session/event` per event.
   */
  eventBatches?: boolean;
  /**
   * The client reassembles `session/eventPart` notifications: the daemon then sends an event too
   * big for one frame in bounded parts; to a client without it, such an event goes in one frame
   * with its longest strings cut and marked (docs/architecture/daemon.md, "Protocol").
   */
  eventParts?: boolean;
  /**
   * The client does not want native frames: every event it is sent, live or replayed, comes
   * without its `native` field (on average about half of an event's bytes). The store keeps them;
   * a connection that does not ask gets them as before.
   */
  omitNative?: boolean;
}
export const ClientCapabilitiesSchema = z.object({
  eventBatches: z.boolean().optional(),
  eventParts: z.boolean().optional(),
  omitNative: z.boolean().optional(),
});
type _CapabilitiesInSync = Assert<Equals<z.output<typeof ClientCapabilitiesSchema>, ClientCapabilities>>;

export interface InitializeParams {
  token: string;
  client?: ClientInfo;
  /** The newest protocol version the client speaks; absent means version 1. */
  protocolVersion?: number;
  /** Optional wire features it takes (version 2 only; a version 1 connection gets none). */
  capabilities?: ClientCapabilities;
}
export const InitializeParamsSchema = z.object({
  token: z.string().min(1),
  client: z.object({ name: z.string().min(1), version: z.string().min(1) }).optional(),
  protocolVersion: z.number().int().positive().optional(),
  capabilities: ClientCapabilitiesSchema.optional(),
});
type _InitializeInSync = Assert<Equals<z.output<typeof InitializeParamsSchema>, InitializeParams>>;

/** The version a daemon serves to a client that asked for `requested` (absent: version 1). */
export function negotiateProtocolVersion(requested: number | undefined): ProtocolVersion {
  if (requested === undefined || requested < 2) return 1;
  return 2;
}

/**
 * What a daemon grants of the capabilities a client asked for on a connection of `version`: every
 * key it knows, true only when asked for and served (batches need version 2).
 */
export function negotiateCapabilities(
  version: ProtocolVersion,
  requested: ClientCapabilities | undefined,
): Required<ClientCapabilities> {
  return {
    eventBatches: version >= 2 && requested?.eventBatches === true,
    eventParts: version >= 2 && requested?.eventParts === true,
    omitNative: version >= 2 && requested?.omitNative === true,
  };
}

export interface InitializeResult {
  /** The version this connection speaks from now on (see negotiateProtocolVersion). */
  protocolVersion: number;
  reinsVersion: string;
  /** Harness ids this daemon can start sessions for. */
  harnesses: HarnessId[];
  /**
   * What the daemon granted of `capabilities` (present when the client sent `capabilities`; a
   * daemon that predates them never sends it: the client then gets single events only).
   */
  capabilities?: ClientCapabilities;
}
export const InitializeResultSchema = z.object({
  protocolVersion: z.number().int().positive(),
  reinsVersion: z.string(),
  harnesses: z.array(HarnessIdSchema),
  capabilities: ClientCapabilitiesSchema.optional(),
});
