// Every event Reins emits validates against the PUBLISHED packages/core/schema/events.schema.json (the file
// the README gives to clients in other languages), checked on what goes over the wire: each event of every
// recorded fixture of every harness, through its pure translation, after a JSON round trip (which drops
// fields the translation left undefined).
import { readdirSync, readFileSync } from 'node:fs';
import { validateAgainstSchema } from '@reins/core';
import type { FuzzFixture as Fixture, FuzzFrame as FixtureFrame, FuzzTarget } from '@reins/harnesses';
import { CheckedEventStream, harnessFuzzTargets } from '@reins/testkit';
import { describe, expect, it } from 'vitest';

const FUZZ_TARGETS = await harnessFuzzTargets();
const published = JSON.parse(readFileSync(new URL('../../core/schema/events.schema.json', import.meta.url), 'utf8'));

/** The wire problems of every event a replay emits: `seq type: error`, empty when all validate. */
function schemaProblems(target: FuzzTarget, fixture: Fixture, frames: readonly FixtureFrame[]): string[] {
  const stream = new CheckedEventStream({ harness: target.name });
  target.replay(frames, stream, fixture);
  stream.finish();
  expect(stream.events.length).toBeGreaterThan(0);
  return stream.events.flatMap((event) => {
    const result = validateAgainstSchema(published, JSON.parse(JSON.stringify(event)));
    return result.ok ? [] : [`${event.seq} ${event.type}: ${result.errors.join('; ').slice(0, 300)}`];
  });
}

const nameOf = (fixture: Fixture) => `${fixture.header.harness}/${fixture.header.behaviour}.${fixture.header.version}`;
const targetNamed = (name: string) => FUZZ_TARGETS.find((target) => target.name === name) as FuzzTarget;

describe('the published event schema', () => {
  it('covers every recorded fixture of every harness folder', () => {
    const src = new URL('.', import.meta.url).pathname;
    const onDisk = readdirSync(src, { recursive: true }).filter(
      (name) => String(name).includes('fixtures/') && String(name).endsWith('.jsonl'),
    );
    const corpus = FUZZ_TARGETS.reduce((sum, target) => sum + target.corpus.length, 0);
    expect(corpus).toBe(onDisk.length);
  });

  it.each(FUZZ_TARGETS.map((target) => [target.name, target] as const))(
    '%s: every event of every recorded fixture validates after a JSON round trip',
    (_name, target) => {
      for (const fixture of target.corpus) {
        expect({ fixture: nameOf(fixture), problems: schemaProblems(target, fixture, fixture.frames) }).toEqual({
          fixture: nameOf(fixture),
          problems: [],
        });
      }
    },
  );

  it('accepts the OpenClaw tool fixture (its tool_call items carry no input)', () => {
    const openclaw = targetNamed('openclaw');
    const tool = openclaw.corpus.find((fixture) => nameOf(fixture) === 'openclaw/tool.2026.9.6');
    expect(tool).toBeDefined();
    expect(schemaProblems(openclaw, tool as Fixture, (tool as Fixture).frames)).toEqual([]);
  });

  it('accepts a Claude Code tool_use without input', () => {
    const claude = targetNamed('claude-code');
    const withTool = claude.corpus.find((fixture) => JSON.stringify(fixture.frames).includes('"type":"tool_use"'));
    expect(withTool).toBeDefined();
    let removed = 0;
    const frames = (withTool as Fixture).frames.map((entry) => {
      const text = JSON.stringify(entry.frame);
      if (!text.includes('"tool_use"')) return entry;
      const frame = JSON.parse(text, (key, value) => {
        if (value && typeof value === 'object' && value.type === 'tool_use' && 'input' in value) {
          removed++;
          const { input: _input, ...rest } = value;
          return rest;
        }
        return key === '' || value !== undefined ? value : undefined;
      });
      return { ...entry, frame };
    });
    expect(removed).toBeGreaterThan(0);
    expect(schemaProblems(claude, withTool as Fixture, frames)).toEqual([]);
  });
});
