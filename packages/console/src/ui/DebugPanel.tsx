// The raw side of a session: every normalized event beside the native frame it came from (the
// event's `native`), newest first, to see what a harness really sent. Fed by the same model as the
// transcript, so it shows exactly what the console applied.
import type { ReinsEvent } from '@reins/core';
import { useState } from 'react';
import type { SessionModel, SessionSnapshot } from '../model/session-model.js';

const PAGE = 200;

function withoutNative(event: ReinsEvent): Omit<ReinsEvent, 'native'> {
  const { native: _native, ...rest } = event;
  return rest;
}

export function DebugPanel({
  model,
  snapshot,
  onClose,
}: {
  model: SessionModel;
  snapshot: SessionSnapshot;
  onClose: () => void;
}) {
  const [shown, setShown] = useState(PAGE);
  const [filter, setFilter] = useState('');
  const [nativeOnly, setNativeOnly] = useState(false);
  // The snapshot changes when events arrive; the events themselves are the model's append-only list.
  const all = model.transcript.events;
  const words = filter.trim().toLowerCase();
  const matching: ReinsEvent[] = [];
  for (let index = all.length - 1; index >= 0 && matching.length < shown; index--) {
    const event = all[index] as ReinsEvent;
    if (nativeOnly && !event.native) continue;
    if (
      words &&
      !`${event.type} ${event.native?.method ?? ''} ${event.native?.source ?? ''}`.toLowerCase().includes(words)
    )
      continue;
    matching.push(event);
  }
  return (
    <aside className="debug" aria-label="Raw frames" data-testid="debug-panel">
      <div className="debug-head">
        <h2>
          Raw frames · {snapshot.eventCount} events
          {snapshot.passthroughCount > 0 ? ` · ${snapshot.passthroughCount} passthrough` : ''}
        </h2>
        <button type="button" className="button small" onClick={onClose} aria-label="Close the raw frames">
          ✕
        </button>
      </div>
      <div className="debug-head">
        <input
          className="field"
          type="search"
          placeholder="Filter by type or native method"
          aria-label="Filter frames"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
        />
        <label className="setting">
          <input type="checkbox" checked={nativeOnly} onChange={(event) => setNativeOnly(event.target.checked)} />{' '}
          native only
        </label>
      </div>
      <div className="debug-list">
        {matching.map((event) => (
          <details key={event.seq} className="frame" data-testid="frame">
            <summary>
              <span className="seq">#{event.seq}</span>
              <span>{event.type}</span>
              <span className="native">
                {event.native ? `${event.native.source}${event.native.method ? ` ${event.native.method}` : ''}` : '—'}
              </span>
            </summary>
            <div className="pair">
              <div className="label">Normalized event</div>
              <pre className="mono">{JSON.stringify(withoutNative(event), null, 2)}</pre>
              <div className="label">Native frame</div>
              <pre className="mono">
                {event.native
                  ? JSON.stringify(event.native.frame, null, 2)
                  : 'No native frame: Reins or the daemon said this itself.'}
              </pre>
            </div>
          </details>
        ))}
        {matching.length >= shown ? (
          <div className="kv">
            <button type="button" className="button small" onClick={() => setShown(shown + PAGE)}>
              Show older
            </button>
          </div>
        ) : null}
      </div>
    </aside>
  );
}
