// The retry bound of a running turn (docs/architecture/contract.md, "Turn rules"): a harness that keeps retrying
// its provider (no network, no account, provider down) reports each retry as a `notice` of kind `retry`; when
// `timeoutMs` pass from the first retry without any progress of the turn in between, the chassis ends the turn
// with `provider_error` instead of letting the harness wait on (Codex 0.171 waits for the network for minutes).
import type { ErrorInfo, ReinsEvent } from '@reins/core';

export class RetryBound {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retries = 0;
  private lastMessage = '';

  constructor(
    readonly timeoutMs: number,
    private readonly displayName: string,
  ) {}

  /** Watches one event of the running turn; `giveUp` runs once when the retries outlast the bound. */
  observe(event: ReinsEvent, giveUp: (error: ErrorInfo) => void): void {
    if (event.type === 'notice' && event.kind === 'retry') {
      this.retries++;
      this.lastMessage = event.message;
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        giveUp(this.error());
      }, this.timeoutMs);
    } else if (event.type.startsWith('item.')) {
      this.stop(); // the provider answered: the retries worked
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.retries = 0;
  }

  private error(): ErrorInfo {
    const seconds = Math.round(this.timeoutMs / 1000);
    return {
      code: 'provider_error',
      message:
        `${this.displayName} could not reach its model provider: ${this.retries} ${this.retries === 1 ? 'retry' : 'retries'} ` +
        `in ${seconds} s without an answer (last: "${this.lastMessage}"), so Reins ended the turn. Check the network ` +
        `and the sign-in (\`reins doctor\`), then send the turn again.`,
      retryable: true,
      data: { kind: 'connection_failed', retries: this.retries },
    };
  }
}
