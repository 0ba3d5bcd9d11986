// What every conformance behaviour is made of: its shape, the context the suite gives it, and the
// three ways it ends besides passing (a failure, an honest harness limitation, a refusal turned into
// one). behaviours.ts and harness-state-behaviours.ts hold the behaviours themselves.
import {
  type CapabilityKey,
  type ItemCompletedEvent,
  ReinsError,
  type ReinsEvent,
  type SessionSpec,
} from '@reins/core';
import type { ModelServer } from '../model-server/index.js';
import type { SessionRecorder } from './recorder.js';
import type { ConformanceSetup } from './target.js';

export interface BehaviourContext {
  server: ModelServer;
  setup: ConformanceSetup;
  workdir: string;
  implemented: ReadonlySet<CapabilityKey>;
  /** Starts a session (suite defaults + overrides) and records its events. */
  open(spec?: Partial<SessionSpec>): Promise<SessionRecorder>;
}

export interface Behaviour {
  name: string;
  /** The capability whose `observed` layer this behaviour decides (a failure records it as not observed). */
  evidences?: CapabilityKey;
  /** Skipped (not failed) unless the adapter implements all of these. */
  requires?: CapabilityKey[];
  run(context: BehaviourContext): Promise<CapabilityKey[]>;
}

export function fail(reason: string): never {
  throw new Error(reason);
}

/**
 * Thrown when the harness cannot do what a behaviour asks and Reins reported that honestly (a clear
 * error, an absent field, a turn that interrupt() still ends). The suite reports it as `limited`
 * when the target lists it as a known limitation of that harness, as `failed` otherwise.
 */
export class HarnessLimitation extends Error {
  override name = 'HarnessLimitation';
}

/** Thrown when a behaviour cannot apply on this machine (what `reins doctor` says no to): reported as skipped. */
export class NotApplicableHere extends Error {
  override name = 'NotApplicableHere';
}

export function limitation(reason: string): never {
  throw new HarnessLimitation(reason);
}

export function check(condition: unknown, reason: string): asserts condition {
  if (!condition) fail(reason);
}

/**
 * Awaits a call the harness may refuse: an `unsupported_capability` (or, where given, another code
 * Reins uses for "the harness cannot") is the honest refusal, so it ends the behaviour as a
 * HarnessLimitation; anything else stays the error it was.
 */
export async function honestly<T>(
  call: () => Promise<T>,
  what: string,
  codes: readonly string[] = ['unsupported_capability'],
): Promise<T> {
  try {
    return await call();
  } catch (thrown) {
    if (ReinsError.isInstance(thrown) && codes.includes(thrown.code)) limitation(`${what}: ${thrown.message}`);
    throw thrown;
  }
}

export function completedItems(events: readonly ReinsEvent[]) {
  return events.filter((event): event is ItemCompletedEvent => event.type === 'item.completed').map((e) => e.item);
}

export function agentText(events: readonly ReinsEvent[]): string {
  return completedItems(events)
    .flatMap((item) => (item.kind === 'agent_message' ? [item.text] : []))
    .join('');
}
