// Counting what a harness sends that Reins did not translate (passthrough events), per behaviour, so the
// canary can tell a newer CLI's new frame types from the pinned one's. The count is taken on the public
// Session API: a conformance target's harness is wrapped so every session it creates has its events
// counted on their way to the suite's recorder. Nothing here changes what the suite sees.
import { type Harness, isRecord, type ReinsEvent, type Session } from '@reins/core';
import type { ConformanceTarget } from '../conformance/target.js';

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** What kind of a method's frame it is: the ACP update kind, the Codex item type. */
function kindOf(frame: Record<string, unknown>): string | undefined {
  const params = isRecord(frame.params) ? frame.params : {};
  const update = isRecord(params.update) ? params.update : {};
  const item = isRecord(params.item) ? params.item : isRecord(frame.item) ? frame.item : {};
  return text(frame.sessionUpdate) ?? text(update.sessionUpdate) ?? text(item.type);
}

/**
 * A stable name for the native frame behind a passthrough event: the JSON-RPC method with the kind of frame
 * (`session/update:available_commands_update`, `item/started:userMessage`), or `type/subtype` for stream-json
 * frames (`system/background_tasks_changed`), or `type`; `(unnamed)` when the frame has none of those. Why it
 * passed through follows in brackets when the adapter said (`[unknown]`, `[duplicate]`).
 */
export function passthroughFrameType(event: Extract<ReinsEvent, { type: 'passthrough' }>): string {
  const frame = isRecord(event.frame) ? event.frame : isRecord(event.native?.frame) ? event.native.frame : {};
  const method = text(frame.method) ?? event.native?.method;
  const kind = kindOf(frame);
  const subtype = text(frame.subtype);
  const name = method
    ? `${method}${kind ? `:${kind}` : ''}`
    : typeof frame.type === 'string'
      ? `${frame.type}${subtype ? `/${subtype}` : ''}`
      : (kind ?? '(unnamed)');
  return event.reason ? `${name} [${event.reason}]` : name;
}

/** Frame type -> how many passthrough events of that type. */
export type FrameCounts = Record<string, number>;

export class PassthroughCounter {
  private counts: FrameCounts = {};

  count(event: ReinsEvent): void {
    if (event.type !== 'passthrough') return;
    const key = passthroughFrameType(event);
    this.counts[key] = (this.counts[key] ?? 0) + 1;
  }

  /** The counts so far, and a fresh start (one call per behaviour). */
  take(): FrameCounts {
    const taken = this.counts;
    this.counts = {};
    return Object.fromEntries(Object.entries(taken).sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}

/** Calls on the wrapper reach the real object (private fields work), except the names given. */
function overlay<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(object, property, _receiver) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof T];
      const value = Reflect.get(object, property, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

function countedSession(session: Session, counter: PassthroughCounter): Session {
  let events: AsyncIterable<ReinsEvent> | undefined;
  return overlay(session, {
    get events() {
      events ??= {
        async *[Symbol.asyncIterator]() {
          for await (const event of session.events) {
            counter.count(event);
            yield event;
          }
        },
      };
      return events;
    },
  } as Partial<Record<keyof Session, unknown>>);
}

function countedHarness(harness: Harness, counter: PassthroughCounter): Harness {
  return overlay(harness, {
    createSession: async (...args: Parameters<Harness['createSession']>) =>
      countedSession(await harness.createSession(...args), counter),
  });
}

/** The same target, with every session its harness creates counted by `counter`. */
export function countingTarget(target: ConformanceTarget, counter: PassthroughCounter): ConformanceTarget {
  return {
    ...target,
    async setup(server, workdir) {
      const setup = await target.setup(server, workdir);
      return { ...setup, harness: countedHarness(setup.harness, counter) };
    },
  };
}
