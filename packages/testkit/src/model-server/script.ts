// The test's script and the record of what arrived: the reply queue, `when` rules, recorded requests and
// waiters on them. No HTTP here; server.ts asks it which reply a request gets.
import { type ReplyInput, type ScriptedReply, toScriptedReply } from './builder.js';
import type { DialectName } from './dialects/dialect.js';

export type RequestOutcome = 'pending' | 'completed' | 'http-error' | 'failed' | 'aborted';

export interface RecordedRequest {
  /** `other` for probes, model lists and unknown paths. */
  dialect: DialectName | 'other';
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-cased names; credentials (authorization, x-api-key, x-goog-api-key, api-key, cookie) are '[redacted]'. */
  headers: Record<string, string>;
  /** Parsed JSON, or the raw text when it is not JSON. */
  body: unknown;
  model: string | undefined;
  /** The user text that ends the conversation in this request ('' for a tool round); what `when` matches. */
  userText: string;
  /** True when a queued or `when` reply answered it; false for auxiliary, default and unrouted requests. */
  scripted: boolean;
  source: 'queue' | 'when' | 'auxiliary' | 'default' | 'none';
  /** The recognizer name when source is 'auxiliary'. */
  auxiliary?: string;
  /** Set when the server answered with an error of its own (nothing scripted in strict mode, no known tool). */
  error?: string;
  /** Updated as the exchange ends: `aborted` means the client left (or the server closed) first. */
  outcome: RequestOutcome;
  /** Date.now() at arrival. */
  at: number;
}

export type WhenMatcher = string | RegExp | ((request: RecordedRequest) => boolean);

export interface WhenOptions {
  /** Keep the rule after it matched (default: one-shot). */
  persistent?: boolean;
  /** What a string/RegExp matcher is tested against: the trailing user text (default) or the raw body. */
  in?: 'userText' | 'body';
}

interface WhenRule {
  matcher: WhenMatcher;
  reply: ScriptedReply;
  persistent: boolean;
  in: 'userText' | 'body';
}

interface Waiter {
  count: number;
  resolve(requests: RecordedRequest[]): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class Script {
  readonly queue: ScriptedReply[] = [];
  requests: RecordedRequest[] = [];
  private rules: WhenRule[] = [];
  private waiters = new Set<Waiter>();

  enqueue(replies: readonly ReplyInput[]): void {
    this.queue.push(...replies.map(toScriptedReply));
  }

  when(matcher: WhenMatcher, reply: ReplyInput, options: WhenOptions = {}): void {
    this.rules.push({
      matcher,
      reply: toScriptedReply(reply),
      persistent: options.persistent ?? false,
      in: options.in ?? 'userText',
    });
  }

  /** First matching `when` rule (one-shot rules are removed), else the head of the queue. */
  take(request: RecordedRequest, rawBody: string): { reply: ScriptedReply; source: 'when' | 'queue' } | undefined {
    const index = this.rules.findIndex((rule) => matches(rule, request, rawBody));
    const rule = this.rules[index];
    if (rule) {
      if (!rule.persistent) this.rules.splice(index, 1);
      return { reply: rule.reply, source: 'when' };
    }
    const next = this.queue.shift();
    return next ? { reply: next, source: 'queue' } : undefined;
  }

  record(request: RecordedRequest): void {
    this.requests.push(request);
    const scripted = this.scripted();
    for (const waiter of this.waiters) {
      if (scripted.length >= waiter.count) this.settle(waiter, () => waiter.resolve(scripted.slice(0, waiter.count)));
    }
  }

  scripted(): RecordedRequest[] {
    return this.requests.filter((request) => request.scripted);
  }

  waitFor(count: number, timeoutMs: number): Promise<RecordedRequest[]> {
    const scripted = this.scripted();
    if (scripted.length >= count) return Promise.resolve(scripted.slice(0, count));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        count,
        resolve,
        reject,
        timer: setTimeout(() => {
          const seen = this.requests.map(describe).join('; ') || 'none';
          this.settle(waiter, () =>
            reject(
              new Error(
                `waitForRequests: expected ${count} scripted request(s) within ${timeoutMs} ms, ` +
                  `got ${this.scripted().length}; all requests: ${seen}`,
              ),
            ),
          );
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** Rejects every waiter (reset, close). */
  cancelWaiters(reason: string): void {
    for (const waiter of this.waiters)
      this.settle(waiter, () => waiter.reject(new Error(`waitForRequests: ${reason}`)));
  }

  reset(): void {
    this.cancelWaiters('the server was reset');
    this.queue.length = 0;
    this.rules = [];
    this.requests = [];
  }

  private settle(waiter: Waiter, action: () => void): void {
    clearTimeout(waiter.timer);
    this.waiters.delete(waiter);
    action();
  }
}

function matches(rule: WhenRule, request: RecordedRequest, rawBody: string): boolean {
  if (typeof rule.matcher === 'function') return rule.matcher(request);
  const haystack = rule.in === 'body' ? rawBody : request.userText;
  return typeof rule.matcher === 'string' ? haystack.includes(rule.matcher) : rule.matcher.test(haystack);
}

function describe(request: RecordedRequest): string {
  const how = request.source === 'auxiliary' ? `auxiliary ${request.auxiliary}` : request.source;
  return `${request.method} ${request.path} [${how}]`;
}
