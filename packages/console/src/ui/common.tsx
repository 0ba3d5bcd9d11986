// Pieces every page uses: the daemon's error as it sent it, status dots, harness badges, the menu button.
import type { ErrorInfo } from '@reins/core';

/** A daemon error shown as is: its BINDING code and its sentence; `method` names what was asked. */
export function DaemonError({ error, method }: { error: ErrorInfo; method?: string }) {
  const missing = method !== undefined && /unknown method|method not found/i.test(error.message);
  return (
    <div className="daemon-error" role="alert" data-testid="daemon-error">
      <span className="code">{error.code}</span> {error.message}
      {missing ? (
        <div className="waits">
          This daemon does not serve <code>{method}</code> yet; this part of the console works once it does.
        </div>
      ) : null}
    </div>
  );
}

export function StatusDot({ status }: { status: string }) {
  return <span className={`status-dot ${status}`} aria-hidden="true" />;
}

const STATUS_TEXT: Record<string, string> = {
  starting: 'starting',
  idle: 'idle',
  running: 'running',
  requires_action: 'needs you',
  dormant: 'dormant',
  closed: 'closed',
  lost: 'lost',
};

export function StatusPill({ status }: { status: string }) {
  return (
    <span className="pill" data-testid="session-status" data-status={status}>
      <StatusDot status={status} />
      {STATUS_TEXT[status] ?? status}
    </span>
  );
}

export function HarnessBadge({ harness }: { harness: string }) {
  return <span className="badge harness">{harness}</span>;
}

/** Opens the session list (the sidebar) on a narrow screen. */
export function MenuButton({ onMenu }: { onMenu: () => void }) {
  return (
    <button type="button" className="button small menu-button" onClick={onMenu} aria-label="Open the session list">
      ☰
    </button>
  );
}
