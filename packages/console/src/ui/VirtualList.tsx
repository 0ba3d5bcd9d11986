// A virtualized, bottom-anchored list: only the rows around the viewport are in the DOM (the
// arithmetic is model/virtual-list.ts), each measured once it rendered; while the reader is at the
// bottom it stays there as rows grow (streaming text), and scrolling up leaves them where they read.
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { HeightIndex } from '../model/virtual-list.js';

export interface VirtualListProps<T> {
  items: T[];
  keyOf: (item: T) => string;
  estimate: (item: T) => number;
  render: (item: T) => ReactNode;
  /** Changes when the list should jump to the bottom (e.g. the user sent a message). */
  bottomSignal?: unknown;
  label: string;
}

const AT_BOTTOM_SLACK = 48;

export function VirtualList<T>({ items, keyOf, estimate, render, bottomSignal, label }: VirtualListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const index = useRef(new HeightIndex()).current;
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(800);
  // A render whatever the state holds: a row's height changed, or the reader left the bottom.
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const stick = useRef(true);

  const keys = useMemo(() => items.map(keyOf), [items, keyOf]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keys derive from items
  useMemo(() => index.setRows(keys, (position) => estimate(items[position] as T)), [keys]);

  const observer = useMemo(
    () =>
      typeof ResizeObserver === 'undefined'
        ? undefined
        : new ResizeObserver((entries) => {
            let changed = false;
            for (const entry of entries) {
              const key = (entry.target as HTMLElement).dataset.key;
              const height = Math.ceil(entry.borderBoxSize?.[0]?.blockSize ?? entry.contentRect.height);
              if (key && height > 0 && index.measure(key, height)) changed = true;
            }
            if (changed) rerender();
          }),
    [index],
  );
  useEffect(() => () => observer?.disconnect(), [observer]);

  // React 19 runs the returned cleanup when the row leaves the DOM.
  const measureRef = useCallback(
    (element: HTMLDivElement | null) => {
      if (!element || !observer) return;
      observer.observe(element);
      return () => observer.unobserve(element);
    },
    [observer],
  );

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const resize = new ResizeObserver(() => setViewport(element.clientHeight));
    resize.observe(element);
    setViewport(element.clientHeight);
    return () => resize.disconnect();
  }, []);

  const total = index.total;
  // Keep to the bottom after every render while the reader is there. No state is set here: while
  // stuck, the range is taken from the bottom (below), so our own scrolling needs no second render.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element || !stick.current) return;
    const bottom = element.scrollHeight - element.clientHeight;
    if (element.scrollTop < bottom - 1) element.scrollTop = bottom;
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: jumps on each new signal
  useLayoutEffect(() => {
    stick.current = true;
  }, [bottomSignal]);

  // A scroll to the bottom (ours while streaming, every frame) renders nothing; the reader's own
  // scroll away from it moves the range.
  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    const wasStuck = stick.current;
    stick.current = element.scrollTop + element.clientHeight >= element.scrollHeight - AT_BOTTOM_SLACK;
    if (stick.current) return;
    setScrollTop(element.scrollTop);
    // While stuck the state kept the scrollTop of the last scroll away (often 0): a jump back to that same
    // place (Home, a drag to the top) would render nothing and leave the bottom rows on screen.
    if (wasStuck) rerender();
  };

  // While the reader is at the bottom, render the rows at the bottom at once: from the scrollTop of
  // the last scroll event, a long history opened at its end rendered its first screenful before the
  // layout effect scrolled down (a wasted render of rows nobody sees).
  const range = index.range(stick.current ? Math.max(scrollTop, total - viewport) : scrollTop, viewport);
  const visible = items.slice(range.start, range.end);
  return (
    <div className="scroller" ref={scroller} onScroll={onScroll} role="log" aria-label={label} tabIndex={-1}>
      <div className="virtual-rows" style={{ height: total }}>
        <div style={{ transform: `translateY(${range.offset}px)` }}>
          {visible.map((item, position) => {
            const key = keys[range.start + position] as string;
            return (
              <div key={key} data-key={key} ref={measureRef} className="row-slot">
                {render(item)}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
