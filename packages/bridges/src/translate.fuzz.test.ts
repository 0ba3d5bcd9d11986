// The bridges' translation fuzzer: valid Reins event sequences (test/support/event-corpus.ts),
// damaged by the testkit's seeded mutation engine (wrong types, dropped fields, unknown event types
// and enum values from the Reins event schema, huge strings, deep nesting, duplicated, reordered,
// dropped and cut-off events), fed through both bridges' guarded translators. For every case: nothing
// throws, every outgoing message validates against its protocol's schema (the pinned Codex's, the
// ACP SDK's) and serialises, and a Codex turn ends at most once. 3,000 cases by default;
// `npm run fuzz -- --seed S --cases N` runs more, `--case I` one alone, `--bridges acp` one bridge.
import { readFileSync } from 'node:fs';
import {
  createRandom,
  describeMutation,
  enumFieldsFromJsonSchema,
  formatFuzzReport,
  fuzzSelection,
  fuzzSettings,
  mutateSequence,
  reproduceWith,
  runFuzz,
  selectByName,
} from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { FUZZ_BRIDGES } from '../../testkit/bin/fuzz-args.mjs';
import { acpSchema } from '../test/support/acp-schema.js';
import { codexSchema } from '../test/support/codex-schema.js';
import { EVENT_CORPUS } from '../test/support/event-corpus.js';
import { createBridgeState, translateSafely as translateAcp } from './acp/translate.js';
import { createThreadState } from './codex-app-server/state.js';
import { translateSafely as translateCodex } from './codex-app-server/translate.js';

const eventSchema = JSON.parse(
  readFileSync(new URL('../../core/schema/events.schema.json', import.meta.url), 'utf8'),
) as unknown;
const MUTATION = { typeFields: ['type', 'kind'], enumFields: enumFieldsFromJsonSchema(eventSchema) };

interface BridgeCase {
  label: string;
  mutations: string[];
  bridge: 'codex' | 'acp';
  events: unknown[];
}

function serialises(value: unknown): string | undefined {
  try {
    JSON.stringify(value);
    return undefined;
  } catch (error) {
    return `not serialisable: ${String(error)}`;
  }
}

function checkCodex(events: unknown[]): string[] {
  const problems: string[] = [];
  const schema = codexSchema();
  for (const view of ['summary', 'full'] as const) {
    const state = createThreadState({ threadId: 'thread-1', cwd: '/work', itemsView: view });
    const ended = new Set<string>();
    for (const event of events) {
      for (const notification of translateCodex(state, event)) {
        const invalid = serialises(notification) ?? schema.notification(notification);
        if (invalid) problems.push(`invalid ${notification.method}: ${invalid}`);
        if (notification.method === 'turn/completed') {
          const id = notification.params.turn.id;
          if (ended.has(id)) problems.push(`turn ${id} completed twice`);
          ended.add(id);
        }
      }
    }
  }
  return problems;
}

function checkAcp(events: unknown[]): string[] {
  const problems: string[] = [];
  const schema = acpSchema();
  const state = createBridgeState(
    {
      effortSwitch: true,
      posture: 'bypass',
      modes: true,
      catalog: [{ id: 'fake-model', isDefault: true, efforts: ['low'] }],
    },
    { notices: true },
  );
  for (const event of events) {
    for (const update of translateAcp(state, event)) {
      const invalid = serialises(update) ?? schema.check('SessionNotification', { sessionId: 's', update });
      if (invalid) problems.push(`invalid ${update.sessionUpdate}: ${invalid}`);
    }
  }
  return problems;
}

describe('the bridges translation corpus', () => {
  it.each(EVENT_CORPUS.map((entry) => [entry.name, entry] as const))(
    '%s translates as recorded with no problem',
    (_name, entry) => {
      expect(checkCodex(entry.events)).toEqual([]);
      expect(checkAcp(entry.events)).toEqual([]);
    },
  );
});

describe('the per-method Codex notification check the fuzzer uses', () => {
  it("gives the whole ServerNotification union's verdict on valid and damaged notifications", () => {
    const schema = codexSchema();
    const translated = EVENT_CORPUS.flatMap((entry) =>
      (['summary', 'full'] as const).flatMap((view) => {
        const state = createThreadState({ threadId: 'thread-1', cwd: '/work', itemsView: view });
        return entry.events.flatMap((event) => translateCodex(state, event));
      }),
    );
    const random = createRandom(20_261_201);
    const damage = { typeFields: ['method', 'type'], hugeStringLength: 64, nestingDepth: 100 };
    const damaged = Array.from({ length: 3_000 }, () =>
      mutateSequence([random.pick(translated)], random, damage).frames.slice(0, 1),
    ).flat();
    const first = translated[0] as object;
    const odd = [
      null,
      'item/started',
      { method: 42, params: {} },
      { method: 'reins/notAMethod', params: {} },
      { ...first, emittedAtMs: 'now' },
      { ...first, emittedAtMs: 1_800_000_000_000 },
      { ...first, emittedAtMs: 1.5 },
    ];
    const verdicts = { accepted: 0, rejected: 0 };
    const disagreements: string[] = [];
    for (const message of [...translated, ...damaged, ...odd]) {
      const byMethod = schema.notification(message) === undefined;
      if (byMethod !== (schema.notificationAgainstUnion(message) === undefined))
        disagreements.push(JSON.stringify(message).slice(0, 300));
      verdicts[byMethod ? 'accepted' : 'rejected']++;
    }
    expect(disagreements).toEqual([]);
    // Both verdicts occur often enough for a disagreement to be found.
    expect(verdicts.accepted).toBeGreaterThan(translated.length);
    expect(verdicts.rejected).toBeGreaterThan(500);
  });
});

const settings = fuzzSettings({ cases: 3_000 });
const selection = fuzzSelection();
// By `reins bridge` protocol name (what `npm run fuzz -- --bridges` takes), codex first as before.
const BRIDGES = [
  { name: 'codex-app-server', bridge: 'codex' },
  { name: 'acp', bridge: 'acp' },
] as const;
const bridges = selectByName(BRIDGES, selection.bridges, 'REINS_FUZZ_BRIDGES');

describe('the bridges translation fuzzer', () => {
  it('fuzzes the bridges `npm run fuzz -- --bridges` knows', () => {
    expect(BRIDGES.map((entry) => entry.name)).toEqual(FUZZ_BRIDGES);
  });

  it(
    `survives ${settings.only !== undefined ? `case ${settings.only}` : `${settings.cases} cases`} (seed ${settings.seed})`,
    () => {
      const started = Date.now();
      const report = runFuzz<BridgeCase>({
        settings,
        build(random, index) {
          const { bridge } = bridges[index % bridges.length] as (typeof BRIDGES)[number];
          const entry = random.pick(EVENT_CORPUS);
          const { frames, mutations } = mutateSequence(entry.events, random, MUTATION);
          return {
            label: `${bridge} ${entry.name}`,
            mutations: mutations.map(describeMutation),
            bridge,
            events: frames,
          };
        },
        check: (fuzzCase) => (fuzzCase.bridge === 'codex' ? checkCodex(fuzzCase.events) : checkAcp(fuzzCase.events)),
      });
      const text = formatFuzzReport(report, reproduceWith(selection));
      console.log(`${text}\n  (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      expect(report.cases).toBe(settings.only !== undefined ? 1 : settings.cases);
      expect(report.failedCases, text).toBe(0);
      // A bound for a stuck run, not a speed assert (speed goes to npm run bench). It grows with the
      // cases: a fixed 600 s failed a healthy 200,000-case run at load 12 (then 1.1 ms of CPU a case, now 0.5).
    },
    Math.max(120_000, settings.cases * 20),
  );
});
