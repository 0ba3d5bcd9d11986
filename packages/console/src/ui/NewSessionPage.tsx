// Start a session: pick a harness (its health, version, sign-in state and capability matrix from
// the daemon), a working directory, a model and effort (from harness/models where the daemon serves
// it), and a posture: bypass runs tools without asking, ask surfaces each approval here.
import { EFFORT_LEVELS, type Effort, type ErrorInfo, type HarnessId, type ModelInfo, type Posture } from '@reins/core';
import { useState } from 'react';
import { type ConsoleState, errorInfo } from '../app/console-state.js';
import { DaemonError, MenuButton } from './common.js';
import { CapabilityTable, HealthBadge, needsSignIn, SignIn } from './harness-parts.js';
import { navigate, useConsole, useDaemonCall } from './hooks.js';

export function NewSessionPage({ state, onMenu }: { state: ConsoleState; onMenu: () => void }) {
  useConsole(state);
  const api = state.api;
  const listings = state.harnesses;
  const [picked, setPicked] = useState<HarnessId | undefined>(undefined);
  // The first ready harness, else the first one installed (the daemon says what fails, if it does).
  const harness =
    picked ??
    listings?.find((entry) => entry.health.status === 'ready')?.id ??
    listings?.find((entry) => entry.discovery.found)?.id;
  const listing = listings?.find((entry) => entry.id === harness);
  const [cwd, setCwd] = useState<string | undefined>(undefined);
  const workspace = cwd ?? state.defaultCwd ?? state.directory.workspaces()[0] ?? '';
  const [model, setModel] = useState('');
  const [effort, setEffort] = useState<Effort | ''>('');
  const [posture, setPosture] = useState<Posture>('bypass');
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<ErrorInfo | undefined>(undefined);
  const models = useDaemonCall<ModelInfo[]>(
    api && harness ? () => api.models(harness) : undefined,
    `models:${harness}`,
  );
  const chosenModel = models.state === 'done' ? models.value.find((entry) => entry.id === model) : undefined;
  const efforts = chosenModel?.efforts ?? EFFORT_LEVELS;

  const create = async () => {
    if (!harness || !workspace.trim()) return;
    setCreating(true);
    setError(undefined);
    try {
      const sessionId = await state.createSession(harness, {
        cwd: workspace.trim(),
        posture,
        ...(model.trim() ? { model: model.trim() } : {}),
        ...(effort ? { effort } : {}),
      });
      navigate({ page: 'session', sessionId });
    } catch (caught) {
      setError(errorInfo(caught));
    } finally {
      setCreating(false);
    }
  };

  return (
    <>
      <div className="topbar">
        <MenuButton onMenu={onMenu} />
        <h1>New session</h1>
      </div>
      <div className="page">
        <div className="page-inner">
          <h2>Harness</h2>
          {state.harnessesError ? <DaemonError error={state.harnessesError} method="harness/list" /> : null}
          {!listings ? (
            <div className="empty">Asking the daemon which harnesses are installed…</div>
          ) : (
            <fieldset className="harness-grid">
              <legend className="visually-hidden">Harness</legend>
              {listings.map((entry) => (
                <button
                  key={entry.id}
                  type="button"
                  className="harness-option"
                  aria-pressed={entry.id === harness}
                  disabled={entry.health.status === 'not_installed'}
                  onClick={() => setPicked(entry.id)}
                  data-harness={entry.id}
                >
                  <span className="name">
                    {entry.displayName}
                    <HealthBadge listing={entry} />
                  </span>
                  <span className="detail mono">
                    {entry.id}
                    {entry.discovery.version ? ` · ${entry.discovery.version}` : ''}
                  </span>
                  {entry.health.message && entry.health.status !== 'ready' ? (
                    <span className="detail">{entry.health.message}</span>
                  ) : null}
                </button>
              ))}
            </fieldset>
          )}
          {listing && needsSignIn(listing) ? (
            <div className="panel">
              <SignIn api={api} listing={listing} onChanged={() => void state.reloadHarnesses()} />
            </div>
          ) : null}

          <h2>Session</h2>
          <div className="panel form-grid">
            <label htmlFor="new-cwd">Working directory</label>
            <input
              id="new-cwd"
              className="field mono"
              list="known-workspaces"
              value={workspace}
              placeholder="/path/to/your/repository"
              onChange={(event) => setCwd(event.target.value)}
              data-testid="cwd-input"
            />
            <datalist id="known-workspaces">
              {[...new Set([state.defaultCwd, ...state.directory.workspaces()])].map((path) =>
                path ? <option key={path} value={path} /> : null,
              )}
            </datalist>
            <span className="help">An absolute path on the daemon's machine; the agent works there.</span>

            <label htmlFor="new-model">Model</label>
            {models.state === 'done' && models.value.length > 0 ? (
              <select
                id="new-model"
                className="field"
                value={model}
                onChange={(event) => setModel(event.target.value)}
                data-testid="model-select"
              >
                <option value="">Harness default</option>
                {models.value.map((entry) => (
                  <option key={entry.id} value={entry.id}>
                    {entry.displayName ?? entry.id}
                    {entry.isDefault ? ' (default)' : ''}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id="new-model"
                className="field mono"
                value={model}
                placeholder="harness default"
                onChange={(event) => setModel(event.target.value)}
                data-testid="model-select"
              />
            )}
            {models.state === 'failed' ? (
              <span className="help">
                <DaemonError error={models.error} method="harness/models" />
              </span>
            ) : null}

            <label htmlFor="new-effort">Effort</label>
            <select
              id="new-effort"
              className="field"
              value={effort}
              onChange={(event) => setEffort(event.target.value as Effort | '')}
            >
              <option value="">Harness default</option>
              {efforts.map((level) => (
                <option key={level} value={level}>
                  {level}
                </option>
              ))}
            </select>

            <span className="form-label" id="posture-label">
              Posture
            </span>
            <fieldset className="segmented" aria-labelledby="posture-label">
              <button type="button" aria-pressed={posture === 'bypass'} onClick={() => setPosture('bypass')}>
                Run tools without asking
              </button>
              <button
                type="button"
                aria-pressed={posture === 'ask'}
                onClick={() => setPosture('ask')}
                data-testid="posture-ask"
              >
                Ask me first
              </button>
            </fieldset>
            <span className="help">
              {posture === 'ask'
                ? 'Each tool the agent wants to run waits for your approval here.'
                : 'The harness runs its tools on its own (its bypass mode).'}
            </span>
          </div>
          <div className="composer-row">
            <span className="hint" />
            <button
              type="button"
              className="button primary"
              disabled={!harness || !workspace.trim() || creating}
              onClick={create}
              data-testid="create-session"
            >
              {creating ? `Starting ${listing?.displayName ?? harness}…` : 'Start session'}
            </button>
          </div>
          {error ? <DaemonError error={error} method="session/create" /> : null}

          {harness ? (
            <>
              <h2>What {listing?.displayName ?? harness} can do</h2>
              <div className="panel">
                <CapabilityTable api={api} harness={harness} />
              </div>
            </>
          ) : null}
        </div>
      </div>
    </>
  );
}
