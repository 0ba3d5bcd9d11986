// Small React glue: re-render on the console state's changes, read the hash route, know the time,
// and run a daemon call into loading / done / failed (the failure as the daemon said it).
import type { ErrorInfo } from '@reins/core';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { type ConsoleState, errorInfo } from '../app/console-state.js';
import { parseRoute, type Route, routeHash } from '../model/route.js';

export function useConsole(state: ConsoleState): number {
  return useSyncExternalStore(state.subscribe, state.version);
}

function subscribeHash(listener: () => void): () => void {
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribeHash, () => window.location.hash);
  return parseRoute(hash);
}

export function navigate(route: Route): void {
  const hash = routeHash(route);
  if (window.location.hash !== hash) window.location.hash = hash;
}

/** The time, refreshed every `ms` (for "5 min ago"). */
export function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export type Loadable<T> =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'done'; value: T }
  | { state: 'failed'; error: ErrorInfo };

/**
 * Runs `call` when the component mounts and whenever `key` changes (a string naming what the call
 * depends on); `call` undefined means there is nothing to call yet.
 */
export function useDaemonCall<T>(call: (() => Promise<T>) | undefined, key: string): Loadable<T> {
  const [result, setResult] = useState<Loadable<T>>({ state: 'idle' });
  const latest = useRef(call);
  latest.current = call;
  const ready = call !== undefined;
  useEffect(() => {
    const run = latest.current;
    if (!ready || !run || !key.length) {
      setResult({ state: 'idle' });
      return;
    }
    let current = true;
    setResult({ state: 'loading' });
    run().then(
      (value) => current && setResult({ state: 'done', value }),
      (error: unknown) => current && setResult({ state: 'failed', error: errorInfo(error) }),
    );
    return () => {
      current = false;
    };
  }, [ready, key]);
  return result;
}
