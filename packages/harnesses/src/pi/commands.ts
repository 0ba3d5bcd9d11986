// Request/response correlation for Pi's RPC commands. Pi's framing is not JSON-RPC (commands are
// `{id, type}`, answers `{type:"response", id, command, success, data | error}`), so JsonRpcPeer
// does not fit; this keeps the same guarantees: a deadline on every command, and every pending
// command rejected at once when the process ends.
import { ReinsError } from '@reins/core';
import type { PiCommand, PiResponse } from './wire.js';

interface Pending {
  command: string;
  resolve: (response: PiResponse) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

export interface PiCommandChannelOptions {
  /** Writes one line to Pi's stdin; false when stdin is gone. */
  send: (line: string) => boolean;
  defaultTimeoutMs: number;
}

export class PiCommandChannel {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private closedWith: ReinsError | undefined;

  constructor(private readonly options: PiCommandChannelOptions) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Sends a command and resolves with its response. A `success:false` answer rejects with a
   * ReinsError whose message is Pi's; `code` says what kind it is for this command.
   */
  request(
    command: PiCommand,
    options: { timeoutMs?: number; failureCode?: ReinsError['code'] } = {},
  ): Promise<PiResponse> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = `reins-${this.nextId++}`;
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs;
    return new Promise<PiResponse>((resolve, reject) => {
      const timer =
        timeoutMs > 0 && Number.isFinite(timeoutMs)
          ? setTimeout(() => {
              this.pending.delete(id);
              reject(
                new ReinsError('timeout', `Pi did not answer the ${command.type} command within ${timeoutMs} ms.`, {
                  harness: 'pi',
                  operation: command.type,
                }),
              );
            }, timeoutMs)
          : undefined;
      this.pending.set(id, {
        command: command.type,
        resolve: (response) => {
          if (response.success) return resolve(response);
          reject(
            new ReinsError(
              options.failureCode ?? 'protocol_error',
              `Pi rejected ${command.type}: ${response.error ?? 'no reason given'}`,
              {
                harness: 'pi',
                operation: command.type,
                data: { piError: response.error },
              },
            ),
          );
        },
        reject,
        timer,
      });
      if (!this.options.send(JSON.stringify({ ...command, id }))) {
        this.settle(id)?.reject(
          new ReinsError('process_exited', `Pi is not running; could not send ${command.type}.`, {
            harness: 'pi',
            operation: command.type,
          }),
        );
      }
    });
  }

  /** Feeds a response frame; false when nobody waits for it (the caller passes it through). */
  receive(response: PiResponse): boolean {
    if (typeof response.id !== 'string') return false;
    const pending = this.settle(response.id);
    if (!pending) return false;
    pending.resolve(response);
    return true;
  }

  /** Rejects every pending command and refuses new ones. */
  close(error: ReinsError): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
  }

  private settle(id: string): Pending | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    this.pending.delete(id);
    if (pending.timer) clearTimeout(pending.timer);
    return pending;
  }
}
