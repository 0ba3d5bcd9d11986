// Where the user writes: Enter sends (Shift+Enter: a new line); while a turn runs the message is
// queued or steered into the turn (the user picks; the bubble then says which the harness did),
// and Stop (or Esc anywhere on the page) interrupts the running turn.
import { memo, useEffect, useRef, useState } from 'react';
import type { DeliveryMode } from '../model/outbox.js';

export interface ComposerProps {
  running: boolean;
  /** Why nothing can be sent (a closed session); undefined when it can. */
  disabledReason: string | undefined;
  hint?: string;
  waitingPermissions: number;
  onSend: (text: string, mode: DeliveryMode) => void;
  onInterrupt: () => void;
}

// Memoized: the session page renders every frame while its session streams, the composer only when
// its own props change.
export const Composer = memo(function Composer({
  running,
  disabledReason,
  hint,
  waitingPermissions,
  onSend,
  onInterrupt,
}: ComposerProps) {
  const [text, setText] = useState('');
  const [mode, setMode] = useState<DeliveryMode>('queue');
  const area = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && running && !event.defaultPrevented) {
        event.preventDefault();
        onInterrupt();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [running, onInterrupt]);

  // Fits the box to the text. Only when the text changed: measuring forces a layout of the page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each change of the text
  useEffect(() => {
    const element = area.current;
    if (!element) return;
    element.style.height = 'auto';
    element.style.height = `${Math.min(200, element.scrollHeight)}px`;
  }, [text]);

  const send = () => {
    const message = text.trim();
    if (!message || disabledReason) return;
    onSend(message, running ? mode : 'queue');
    setText('');
  };

  return (
    <div className="composer">
      <div className="composer-inner">
        {waitingPermissions > 0 ? (
          <div className="permission-banner" role="status">
            The agent is waiting for your answer to{' '}
            {waitingPermissions === 1 ? 'a permission request' : `${waitingPermissions} permission requests`} above.
          </div>
        ) : null}
        <label className="visually-hidden" htmlFor="composer-input">
          Message
        </label>
        <textarea
          id="composer-input"
          ref={area}
          data-autofocus
          className="field"
          rows={1}
          placeholder={disabledReason ?? (running ? 'Add to the conversation…' : 'Ask the agent…')}
          disabled={disabledReason !== undefined}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              send();
            }
          }}
        />
        <div className="composer-row">
          <span className="hint">
            {hint ?? (
              <>
                <kbd>Enter</kbd> send · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line
                {running ? (
                  <>
                    {' '}
                    · <kbd>Esc</kbd> interrupt
                  </>
                ) : null}
              </>
            )}
          </span>
          {running ? (
            <fieldset className="segmented">
              <legend className="visually-hidden">While the turn runs</legend>
              <button
                type="button"
                aria-pressed={mode === 'queue'}
                onClick={() => setMode('queue')}
                title="Run after the current turn"
              >
                Queue
              </button>
              <button
                type="button"
                aria-pressed={mode === 'steer'}
                onClick={() => setMode('steer')}
                title="Add to the running turn"
              >
                Steer
              </button>
            </fieldset>
          ) : null}
          {running ? (
            <button type="button" className="button danger" onClick={onInterrupt} data-testid="interrupt">
              ■ Stop
            </button>
          ) : null}
          <button
            type="button"
            className="button primary"
            onClick={send}
            disabled={disabledReason !== undefined || text.trim() === ''}
            data-testid="send"
          >
            {running ? (mode === 'steer' ? 'Steer' : 'Queue') : 'Send'}
          </button>
        </div>
      </div>
    </div>
  );
});
