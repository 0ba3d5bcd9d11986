// The arithmetic of a virtualized list: rows have measured heights (an estimate until measured);
// given the scroll position and the viewport, which rows to render and where. A session of 20 000
// events renders a screenful of rows, not all of them. Offsets are prefix sums, recomputed only from
// the first row whose height changed.

export interface VisibleRange {
  /** First row to render (inclusive) and last (exclusive). */
  start: number;
  end: number;
  /** Top of row `start`, from the top of the list. */
  offset: number;
  /** Height of the whole list. */
  total: number;
}

export class HeightIndex {
  private keys: string[] = [];
  private indexOfKey = new Map<string, number>();
  private readonly measured = new Map<string, number>();
  private estimates: number[] = [];
  /** offsets[i] = top of row i; offsets[n] = total. Valid up to `validUpTo`. */
  private offsets: number[] = [0];
  private validUpTo = 0;

  /** The rows, in order, with an estimated height each (used until the row is measured). */
  setRows(keys: string[], estimate: (index: number) => number): void {
    let firstChange = 0;
    const limit = Math.min(keys.length, this.keys.length);
    while (firstChange < limit && keys[firstChange] === this.keys[firstChange]) firstChange++;
    this.keys = keys;
    this.indexOfKey = new Map(keys.map((key, index) => [key, index]));
    this.estimates = keys.map((_, index) => estimate(index));
    this.invalidateFrom(firstChange);
  }

  /** A row's real height; true when it differed from what the index had. */
  measure(key: string, height: number): boolean {
    if (this.measured.get(key) === height) return false;
    this.measured.set(key, height);
    const index = this.indexOfKey.get(key);
    if (index !== undefined) this.invalidateFrom(index);
    return true;
  }

  get count(): number {
    return this.keys.length;
  }

  heightOf(index: number): number {
    const key = this.keys[index];
    if (key === undefined) return 0;
    return this.measured.get(key) ?? this.estimates[index] ?? 0;
  }

  offsetOf(index: number): number {
    this.ensure(index);
    return this.offsets[index] ?? 0;
  }

  get total(): number {
    return this.offsetOf(this.keys.length);
  }

  /** Rows that intersect [scrollTop - overscan, scrollTop + viewport + overscan]. */
  range(scrollTop: number, viewport: number, overscan = 600): VisibleRange {
    const count = this.keys.length;
    const total = this.total;
    if (count === 0) return { start: 0, end: 0, offset: 0, total };
    const top = Math.max(0, scrollTop - overscan);
    const bottom = scrollTop + viewport + overscan;
    const start = this.indexAt(top);
    let end = start;
    while (end < count && this.offsetOf(end) < bottom) end++;
    return { start, end: Math.max(end, Math.min(count, start + 1)), offset: this.offsetOf(start), total };
  }

  /** The row that contains `y` (binary search over the offsets). */
  private indexAt(y: number): number {
    const count = this.keys.length;
    this.ensure(count);
    let low = 0;
    let high = count - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.offsets[middle] ?? 0) <= y) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  private invalidateFrom(index: number): void {
    this.validUpTo = Math.min(this.validUpTo, index);
    this.offsets.length = Math.min(this.offsets.length, this.validUpTo + 1);
  }

  private ensure(index: number): void {
    for (let i = this.validUpTo; i < index && i < this.keys.length; i++) {
      this.offsets[i + 1] = (this.offsets[i] ?? 0) + this.heightOf(i);
      this.validUpTo = i + 1;
    }
  }
}
