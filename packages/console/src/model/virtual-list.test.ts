import { describe, expect, it } from 'vitest';
import { HeightIndex } from './virtual-list.js';

const keys = (count: number) => Array.from({ length: count }, (_, index) => `r${index}`);

describe('HeightIndex', () => {
  it('renders only the rows around the viewport of a long list', () => {
    const index = new HeightIndex();
    index.setRows(keys(20_000), () => 50);
    expect(index.total).toBe(1_000_000);
    const range = index.range(500_000, 800, 100);
    expect(range.start).toBe(9_998);
    expect(range.offset).toBe(499_900);
    expect(range.end).toBe(10_018);
    expect(range.end - range.start).toBeLessThan(30);
  });

  it('moves later rows when a row is measured, and keeps measurements across new rows', () => {
    const index = new HeightIndex();
    index.setRows(keys(3), () => 10);
    expect(index.measure('r0', 100)).toBe(true);
    expect(index.measure('r0', 100)).toBe(false);
    expect(index.offsetOf(2)).toBe(110);
    index.setRows(keys(4), () => 10);
    expect(index.offsetOf(3)).toBe(120);
    expect(index.range(105, 10, 0)).toMatchObject({ start: 1, offset: 100 });
  });

  it('has an empty range for an empty list, and at least one row otherwise', () => {
    const index = new HeightIndex();
    expect(index.range(0, 500)).toEqual({ start: 0, end: 0, offset: 0, total: 0 });
    index.setRows(keys(1), () => 10);
    expect(index.range(9_999, 10, 0)).toMatchObject({ start: 0, end: 1 });
  });
});
