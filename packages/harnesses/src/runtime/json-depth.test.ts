import { describe, expect, it } from 'vitest';
import { DEPTH_SCAN_FROM, isTooDeepToParse, MAX_LINE_DEPTH, nestsDeeperThan, parseHarnessLine } from './json-depth.js';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings (escaped quotes included)', () => {
    expect(nestsDeeperThan(nested(5), 5)).toBe(false);
    expect(nestsDeeperThan(nested(6), 5)).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":[1,{"c":2}]}}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":{"b":[1,{"c":2}]}}', 3)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify({ text: '[[[[[[[[[["\\\\' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ text: 'say "[[[[" \\ {{{{' }), 1)).toBe(false);
    // Depth goes back down: siblings are no deeper than the deepest branch.
    expect(nestsDeeperThan(`[${Array.from({ length: 100 }, () => nested(3)).join(',')}]`, 4)).toBe(false);
  });

  it('leaves short or shallow lines to JSON.parse and refuses long deep ones', () => {
    expect(isTooDeepToParse(nested(MAX_LINE_DEPTH + 1))).toBe(DEPTH_SCAN_FROM <= 2 * (MAX_LINE_DEPTH + 1));
    expect(isTooDeepToParse(JSON.stringify({ text: 'x'.repeat(DEPTH_SCAN_FROM) }))).toBe(false);
    expect(isTooDeepToParse(nested(DEPTH_SCAN_FROM))).toBe(true);
    // At the limit exactly (the outer object and 999 levels in it), long: parsed; one level more: not.
    const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const padded = (levels: number) => `{"pad":"${'x'.repeat(DEPTH_SCAN_FROM)}","wrap":${deepObject(levels)}}`;
    expect(isTooDeepToParse(padded(MAX_LINE_DEPTH - 1))).toBe(false);
    expect(isTooDeepToParse(padded(MAX_LINE_DEPTH))).toBe(true);
    expect(JSON.parse(padded(MAX_LINE_DEPTH - 1)).pad).toHaveLength(DEPTH_SCAN_FROM);
  });
});

describe('parseHarnessLine', () => {
  it('parses JSON, shows a non-JSON line as it is, and a too-deep line as a marker without parsing it', () => {
    expect(parseHarnessLine('{"a":[1]}')).toEqual({ parsed: true, value: { a: [1] } });
    expect(parseHarnessLine('progress 50%')).toEqual({ parsed: false, shown: 'progress 50%' });
    const deep = nested(DEPTH_SCAN_FROM);
    expect(parseHarnessLine(deep)).toEqual({
      parsed: false,
      shown: { reinsTruncated: true, reason: `a line of ${deep.length} characters nested deeper than 1000 levels` },
    });
  });
});
