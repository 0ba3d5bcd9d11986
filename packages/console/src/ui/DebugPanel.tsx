// The raw side of a session: every normalized event beside the native frame it came from, newest
// first, to see what a harness really sent. Fed by the same model as the transcript, so it shows
// exactly what the console applied. The console takes events without their native frames: this
// panel fetches them while it is open (model/native-frames.ts).
import type { NativeFrame, ReinsEvent } from '@reins/core';
import { useEffect, useState } from 'react';
import { type FetchNativeFrames, NativeFrameLoader } from '../model/native-frames.js';
import type { SessionModel, SessionSnapshot } from '../model/session-model.js';

const PAGE = 200;

function withoutNative(event: ReinsEvent): Omit<ReinsEvent, 'native'> {
  const { native: _native, ...rest } = event;
  return rest;
}

/** The loader of this panel's native frames, asked for the frames up to the model's newest event. */
function useNativeFrames(fetchNatives: FetchNativeFrames, lastSeq: number): NativeFrameLoader | undefined {
  const [loader, setLoader] = useState<NativeFrameLoader>();
  const [, setVersion] = useState(0);
  useEffect(() => {
    const made = new NativeFrameLoader(fetchNatives, () => setVersion((version) => version + 1));
    setLoader(made);
    return () => made.stop();
  }, [fetchNatives]);
  useEffect(() => loader?.want(lastSeq), [loader, lastSeq]);
  return loader;
}

export function DebugPanel({
  model,
  snapshot,
  fetchNatives,
  onClose,
}: {
  model: SessionModel;
  snapshot: SessionSnapshot;
  fetchNatives: FetchNativeFrames;
  onClose: () => void;
}) {
  const loader = useNativeFrames(fetchNatives, model.lastSeq);
  const nativeOf = (event: ReinsEvent): NativeFrame | undefined => event.native ?? loader?.frames.get(event.seq);
  const [shown, setShown] = useState(PAGE);
  const [filter, setFilter] = useState('');
  const [nativeOnly, setNativeOnly] = useState(false);
  // The snapshot changes when events arrive; the events themselves are the model's append-only list.
  const all = model.transcript.events;
  const words = filter.trim().toLowerCase();
  const matching: ReinsEvent[] = [];
  for (let index = all.length - 1; index >= 0 && matching.length < shown; index--) {
    const event = all[index] as ReinsEvent;
    const native = nativeOf(event);
    if (nativeOnly && !native) continue;
    if (words && !`${event.type} ${native?.method ?? ''} ${native?.source ?? ''}`.toLowerCase().includes(words))
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
        {loader?.failure !== undefined ? (
          <div className="kv" role="status">
            Native frames could not be loaded: {loader.failure}
          </div>
        ) : null}
        {matching.map((event) => (
          <FrameRow
            key={event.seq}
            event={event}
            native={nativeOf(event)}
            loading={!event.native && loader !== undefined && !loader.fetched(event.seq) && !loader.failure}
          />
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

function FrameRow({
  event,
  native,
  loading,
}: {
  event: ReinsEvent;
  native: NativeFrame | undefined;
  loading: boolean;
}) {
  return (
    <details className="frame" data-testid="frame">
      <summary>
        <span className="seq">#{event.seq}</span>
        <span>{event.type}</span>
        <span className="native">
          {native ? `${native.source}${native.method ? ` ${native.method}` : ''}` : loading ? '…' : '—'}
        </span>
      </summary>
      <div className="pair">
        <div className="label">Normalized event</div>
        <pre className="mono">{JSON.stringify(withoutNative(event), null, 2)}</pre>
        <div className="label">Native frame</div>
        <pre className="mono" data-testid="native-frame">
          {native
            ? JSON.stringify(native.frame, null, 2)
            : loading
              ? 'Loading the native frame…'
              : 'No native frame: Reins or the daemon said this itself.'}
        </pre>
      </div>
    </details>
  );
}
