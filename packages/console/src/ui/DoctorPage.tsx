// The doctor: which harnesses this daemon offers, where each binary was found (how, which version),
// its health with what to do about it, its sign-in state, and its capability matrix with evidence.
import type { HarnessListing } from '@reins/client';
import { useState } from 'react';
import type { ConsoleState } from '../app/console-state.js';
import { DaemonError, MenuButton } from './common.js';
import { CapabilityTable, HealthBadge, needsSignIn, SignIn } from './harness-parts.js';
import { useConsole, useDaemonCall } from './hooks.js';

export function DoctorPage({ state, onMenu }: { state: ConsoleState; onMenu: () => void }) {
  useConsole(state);
  const api = state.api;
  const [refreshing, setRefreshing] = useState(false);
  const info = api?.info;
  return (
    <>
      <div className="topbar">
        <MenuButton onMenu={onMenu} />
        <h1>Doctor</h1>
        <span className="spacer" />
        <button
          type="button"
          className="button small"
          disabled={refreshing || !api}
          onClick={async () => {
            setRefreshing(true);
            await state.reloadHarnesses();
            setRefreshing(false);
          }}
        >
          {refreshing ? 'Checking…' : 'Check again'}
        </button>
      </div>
      <div className="page" data-testid="doctor">
        <div className="page-inner">
          <h2>Daemon</h2>
          <div className="panel">
            <table className="table">
              <tbody>
                <tr>
                  <th>Reins</th>
                  <td data-testid="reins-version">{info?.reinsVersion ?? '…'}</td>
                </tr>
                <tr>
                  <th>Protocol</th>
                  <td>{info ? `version ${info.protocolVersion}` : '…'}</td>
                </tr>
                <tr>
                  <th>Listening on</th>
                  <td className="mono">{window.location.host}</td>
                </tr>
                <tr>
                  <th>Connection</th>
                  <td>{state.connection.state.status}</td>
                </tr>
                <tr>
                  <th>Harnesses offered</th>
                  <td>{info?.harnesses.join(', ') ?? '…'}</td>
                </tr>
              </tbody>
            </table>
          </div>
          <h2>Harnesses</h2>
          {state.harnessesError ? <DaemonError error={state.harnessesError} method="harness/list" /> : null}
          {!state.harnesses ? (
            <div className="empty">Discovering harnesses and checking their health…</div>
          ) : (
            state.harnesses.map((listing) => <HarnessReport key={listing.id} state={state} listing={listing} />)
          )}
        </div>
      </div>
    </>
  );
}

function HarnessReport({ state, listing }: { state: ConsoleState; listing: HarnessListing }) {
  const api = state.api;
  const [open, setOpen] = useState(false);
  const auth = useDaemonCall(api && open ? () => api.authStatus(listing.id) : undefined, `auth:${listing.id}`);
  const { discovery, health } = listing;
  return (
    <div className="panel doctor-harness" data-testid="doctor-harness" data-harness={listing.id}>
      <div className="doctor-title">
        <strong>{listing.displayName}</strong> <code>{listing.id}</code> <HealthBadge listing={listing} />
        <span className="spacer" />
        <button type="button" className="button small" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide capabilities' : 'Capabilities and sign-in'}
        </button>
      </div>
      <table className="table">
        <tbody>
          <tr>
            <th>Binary</th>
            <td className="mono">
              {discovery.found ? (discovery.path ?? health.binary?.path ?? 'found') : 'not found'}
            </td>
          </tr>
          <tr>
            <th>Version</th>
            <td>{discovery.version ?? health.binary?.version ?? 'unknown'}</td>
          </tr>
          <tr>
            <th>Found through</th>
            <td>{discovery.source ?? health.binary?.source ?? '—'}</td>
          </tr>
          {health.binary?.sha256 ? (
            <tr>
              <th>sha256</th>
              <td className="mono">{health.binary.sha256}</td>
            </tr>
          ) : null}
          {health.message ? (
            <tr>
              <th>Health</th>
              <td>{health.message}</td>
            </tr>
          ) : null}
          {health.fix || discovery.hint ? (
            <tr>
              <th>Fix</th>
              <td className="mono">{health.fix ?? discovery.hint}</td>
            </tr>
          ) : null}
          {listing.auth ? (
            <tr>
              <th>Sign-in</th>
              <td data-testid="doctor-auth">
                {listing.auth.status.replace('_', ' ')}
                {listing.auth.account ? ` as ${listing.auth.account}` : ''}
                {listing.auth.message ? ` · ${listing.auth.message}` : ''}
              </td>
            </tr>
          ) : null}
          {health.authMethods?.length ? (
            <tr>
              <th>Sign-in methods</th>
              <td>{health.authMethods.join(', ')}</td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {needsSignIn(listing) ? (
        <SignIn api={api} listing={listing} onChanged={() => void state.reloadHarnesses()} />
      ) : null}
      {open ? (
        <>
          <h3 className="subhead">Sign-in state</h3>
          {auth.state === 'failed' ? <DaemonError error={auth.error} method="harness/auth/status" /> : null}
          {auth.state === 'done' ? (
            <div className="kv">
              {auth.value.status}
              {auth.value.account ? ` · ${auth.value.account}` : ''}
            </div>
          ) : null}
          <h3 className="subhead">Capabilities</h3>
          <CapabilityTable api={api} harness={listing.id} />
        </>
      ) : null}
    </div>
  );
}
