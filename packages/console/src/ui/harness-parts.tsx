// What the new-session page and the doctor both show of a harness: its health, its capability matrix
// with the evidence behind each layer (harness/capabilities), and sign-in (harness/auth/login, the
// state flipping when harness/authChanged arrives). A daemon that does not serve one of these
// methods says so, and that is what is shown.
import type { AuthCeremonyInfo, HarnessAuthChangedParams, HarnessListing } from '@reins/client';
import {
  CAPABILITY_KEYS,
  type CapabilityLayer,
  type CapabilityMatrix,
  type ErrorInfo,
  type HarnessId,
} from '@reins/core';
import { useEffect, useState } from 'react';
import type { DaemonApi } from '../api/daemon-api.js';
import { errorInfo } from '../app/console-state.js';
import { DaemonError } from './common.js';
import { useDaemonCall } from './hooks.js';

export function HealthBadge({ listing }: { listing: HarnessListing }) {
  const status =
    listing.health.status === 'ready' && listing.auth?.status === 'signed_out'
      ? 'auth_required'
      : listing.health.status;
  const text = {
    ready: 'ready',
    not_installed: 'not installed',
    unhealthy: 'unhealthy',
    auth_required: 'sign-in needed',
  }[status];
  return <span className={`health ${status}`}>{text}</span>;
}

function layerText(layer: CapabilityLayer): string {
  return `${layer.state}${layer.how ? ` (${layer.how})` : ''}`;
}

function evidenceText(layer: CapabilityLayer): string | undefined {
  const newest = [...(layer.evidence ?? [])].sort((a, b) => b.at - a.at)[0];
  if (!newest) return layer.source;
  const when = new Date(newest.at).toISOString().replace('T', ' ').slice(0, 16);
  return `${newest.check} ${newest.passed ? 'passed' : 'failed'} on ${newest.binary.path}${
    newest.binary.version ? ` ${newest.binary.version}` : ''
  } at ${when}`;
}

export function CapabilityTable({ api, harness }: { api: DaemonApi | undefined; harness: HarnessId }) {
  const matrix = useDaemonCall<CapabilityMatrix>(
    api ? () => api.capabilities(harness) : undefined,
    `capabilities:${harness}`,
  );
  if (matrix.state === 'loading' || matrix.state === 'idle') return <div className="empty">Reading capabilities…</div>;
  if (matrix.state === 'failed') return <DaemonError error={matrix.error} method="harness/capabilities" />;
  return (
    <table className="table" data-testid="capabilities">
      <thead>
        <tr>
          <th>Capability</th>
          <th>Implemented</th>
          <th>Advertised</th>
          <th>Observed</th>
          <th>Evidence</th>
        </tr>
      </thead>
      <tbody>
        {CAPABILITY_KEYS.map((key) => {
          const capability = matrix.value[key];
          return (
            <tr key={key}>
              <td>{key}</td>
              <td className={`layer ${capability.implemented.state}`}>{layerText(capability.implemented)}</td>
              <td className={`layer ${capability.advertised.state}`}>{layerText(capability.advertised)}</td>
              <td className={`layer ${capability.observed.state}`}>{layerText(capability.observed)}</td>
              <td>
                {evidenceText(capability.observed) ?? evidenceText(capability.advertised) ?? ''}
                {capability.testedVersions.length > 0 ? ` · tested: ${capability.testedVersions.join(', ')}` : ''}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** True when the harness says its user is signed out (its own check, in harness/list), or its health needs sign-in. */
export function needsSignIn(listing: HarnessListing): boolean {
  return listing.auth?.status === 'signed_out' || listing.health.status === 'auth_required';
}

/**
 * Sign in to a harness that needs it: runs harness/auth/login, opens the URL the harness gives (and
 * shows its code), and flips to signed in when harness/authChanged says so.
 */
export function SignIn({
  api,
  listing,
  onChanged,
}: {
  api: DaemonApi | undefined;
  listing: HarnessListing;
  onChanged?: () => void;
}) {
  const [ceremony, setCeremony] = useState<AuthCeremonyInfo | undefined>(undefined);
  const [error, setError] = useState<ErrorInfo | undefined>(undefined);
  const [changed, setChanged] = useState<HarnessAuthChangedParams | undefined>(undefined);
  useEffect(
    () =>
      api?.onAuthChanged((change) => {
        if (change.harness !== listing.id) return;
        setChanged(change);
        if (change.status === 'signed_in') setCeremony(undefined);
        onChanged?.();
      }),
    [api, listing.id, onChanged],
  );
  if (changed?.status === 'signed_in') {
    return (
      <span className="health ready" data-testid="signed-in">
        signed in{changed.account ? ` as ${changed.account}` : ''}
      </span>
    );
  }
  const methods = listing.auth?.methods ?? [];
  const start = async (method?: string) => {
    if (!api) return;
    setError(undefined);
    try {
      const started = await api.authLogin(listing.id, method);
      setCeremony(started);
      if (started.url) window.open(started.url, '_blank', 'noopener,noreferrer');
    } catch (caught) {
      setError(errorInfo(caught));
    }
  };
  return (
    <div className="sign-in" data-testid="sign-in-panel">
      <div className="button-row left">
        {methods.length > 1 ? (
          methods.map((method) => (
            <button key={method.id} type="button" className="button small primary" onClick={() => start(method.id)}>
              Sign in with {method.name ?? method.id}
            </button>
          ))
        ) : (
          <button
            type="button"
            className="button small primary"
            onClick={() => start(methods[0]?.id)}
            data-testid="sign-in"
          >
            Sign in to {listing.displayName}
          </button>
        )}
        {listing.auth?.command ? (
          <span className="kv">
            or run <code>{listing.auth.command}</code>
          </span>
        ) : null}
      </div>
      {ceremony ? (
        <div className="kv" data-testid="sign-in-ceremony">
          {ceremony.instructions}
          {ceremony.userCode ? (
            <>
              {' '}
              Code: <code data-testid="sign-in-code">{ceremony.userCode}</code>
            </>
          ) : null}
          {ceremony.url ? (
            <>
              {' '}
              <a href={ceremony.url} target="_blank" rel="noopener noreferrer">
                Open the sign-in page
              </a>
            </>
          ) : null}{' '}
          <button
            type="button"
            className="button small"
            onClick={() => {
              void api?.authCancel(ceremony.ceremonyId).catch(() => {});
              setCeremony(undefined);
            }}
          >
            Cancel
          </button>
        </div>
      ) : null}
      {changed ? <div className="kv">Still {changed.status.replace('_', ' ')}.</div> : null}
      {error ? <DaemonError error={error} method="harness/auth/login" /> : null}
    </div>
  );
}
