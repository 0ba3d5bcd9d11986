// acp-check's side of one agent connection: requests with a deadline, every line the agent wrote kept and
// judged (framing and schema), the agent's own requests answered the way a client without capabilities does.
import type { AcpSchema, WireMessage } from './schema.js';

/** Lines to and from an agent: a spawned process's stdio, or an in-memory agent in tests. */
export interface AgentTransport {
  write(line: string): void;
  onLine(listener: (line: string) => void): void;
  /** Called once when the agent is gone (how it ended), so waits end at once instead of at their deadline. */
  onExit?(listener: (how: string) => void): void;
  /** Ends the agent (stdin closed, then signals): resolves when it is gone. */
  close(): Promise<void>;
}

export type Answer = { result?: unknown; error?: { code: number; message: string } };

export class TimeoutError extends Error {}

export class AgentPeer {
  /** Everything the agent wrote that parsed, in order. */
  readonly received: WireMessage[] = [];
  /** Lines that were not exactly one JSON object. */
  readonly framingErrors: string[] = [];
  readonly schemaErrors: string[] = [];
  private readonly methods = new Map<unknown, string>();
  private readonly waiters = new Set<() => void>();
  private nextId = 1;
  /** How the agent ended, once it has. */
  private gone: string | undefined;

  constructor(
    private readonly transport: AgentTransport,
    private readonly schema: AcpSchema,
    private readonly timeoutMs: number,
  ) {
    transport.onLine((line) => this.take(line));
    transport.onExit?.((how) => {
      this.gone = how;
      for (const wake of this.waiters) wake();
    });
  }

  private take(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.framingErrors.push(`not one JSON message: ${line.slice(0, 120)}`);
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.framingErrors.push(`not a JSON-RPC object: ${line.slice(0, 120)}`);
      return;
    }
    const wire = message as WireMessage;
    this.received.push(wire);
    const violation = this.schema.violation(wire, (id) => this.methods.get(id));
    if (violation) this.schemaErrors.push(`${describe(wire)}: ${violation}`);
    if (typeof wire.method === 'string' && wire.id !== undefined) this.answerAgent(wire);
    for (const wake of this.waiters) wake();
  }

  /** We advertise no fs/terminal capability, so only a permission request is ours to answer: cancelled. */
  private answerAgent(request: WireMessage): void {
    if (request.method === 'session/request_permission') {
      this.send({ id: request.id, result: { outcome: { outcome: 'cancelled' } } });
    } else {
      this.send({ id: request.id, error: { code: -32601, message: `acp-check serves no ${request.method}` } });
    }
  }

  send(message: WireMessage): void {
    if (typeof message.method === 'string') {
      const invalid = this.schema.requestViolation(message.method, message.params);
      if (invalid) throw new Error(`acp-check sent an invalid ${message.method} (${invalid}): a bug in acp-check`);
    }
    this.transport.write(JSON.stringify({ jsonrpc: '2.0', ...message }));
  }

  /** Sends a request and returns its id; `answer(id)` waits for what came back. */
  start(method: string, params: unknown): number {
    const id = this.nextId++;
    this.methods.set(id, method);
    this.send({ id, method, params });
    return id;
  }

  async request(method: string, params: unknown): Promise<Answer> {
    return this.answer(this.start(method, params), method);
  }

  async answer(id: number, what: string): Promise<Answer> {
    const found = await this.until(() => this.received.find((m) => m.id === id && m.method === undefined), what);
    return found as Answer;
  }

  notify(method: string, params: unknown): void {
    this.send({ method, params });
  }

  /** The first value `probe` finds, waiting for new messages up to the deadline. */
  async until<T>(probe: () => T | undefined, what: string, timeoutMs = this.timeoutMs): Promise<T> {
    const now = probe();
    if (now !== undefined) return now;
    if (this.gone !== undefined) throw new Error(`no ${what}: the agent ${this.gone}`);
    return new Promise<T>((resolve, reject) => {
      const wake = () => {
        const found = probe();
        if (found === undefined && this.gone === undefined) return;
        done();
        if (found !== undefined) resolve(found);
        else reject(new Error(`no ${what}: the agent ${this.gone}`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new TimeoutError(`no ${what} within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      this.waiters.add(wake);
    });
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

function describe(message: WireMessage): string {
  if (typeof message.method === 'string') return `${message.method}${message.id !== undefined ? ' request' : ''}`;
  return `answer to id ${JSON.stringify(message.id)}`;
}
