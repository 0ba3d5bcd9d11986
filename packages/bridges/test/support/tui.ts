// What the Codex TUI real test needs: the official `codex` TUI in a tmux pane (typed into as a person
// types, read from the screen), its own minimal CODEX_HOME, and a recording WebSocket proxy between
// it and an app-server, so the test sees which methods the TUI calls and validates every frame.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { until } from '@reins/testkit';
import WebSocket, { WebSocketServer } from 'ws';
import type { Message } from './processes.js';

/** The TUI's own home: no model config at all (the model is the server's), nothing phoning home. */
export async function tuiCodexHome(dir: string): Promise<string> {
  const home = join(dir, 'tui-codex-home');
  await mkdir(home, { recursive: true });
  await writeFile(
    join(home, 'config.toml'),
    [
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      '[feedback]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  return home;
}

/** A tmux server of our own (its socket name), one pane running a command. */
export class TmuxPane {
  private constructor(private readonly socket: string) {}

  static start(socket: string, command: string[], env: Record<string, string>, cwd: string): TmuxPane {
    const pane = new TmuxPane(socket);
    const exports = Object.entries(env).map(([key, value]) => `export ${key}=${shellQuote(value)};`);
    const script = `${exports.join(' ')} cd ${shellQuote(cwd)} && exec ${command.map(shellQuote).join(' ')}`;
    pane.tmux(['new-session', '-d', '-x', '160', '-y', '45', 'sh', '-c', script]);
    pane.tmux(['set-option', '-g', 'remain-on-exit', 'on']);
    return pane;
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], {
      encoding: 'utf8',
      // tmux's complaints travel in the thrown error, not onto the test's output.
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TERM: 'xterm-256color' },
    });
  }

  screen(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-200']);
  }

  /** Types text, then (after a pause, so the TUI does not take Enter as part of a paste) Enter. */
  async submit(text: string): Promise<void> {
    this.tmux(['send-keys', '-l', text]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    this.tmux(['send-keys', 'Enter']);
  }

  /** Types text a key at a time (a burst would read as a paste, which opens no popup). */
  async type(text: string): Promise<void> {
    for (const char of text) {
      this.tmux(['send-keys', '-l', char]);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  key(name: string): void {
    this.tmux(['send-keys', name]);
  }

  async waitFor(pattern: RegExp, what: string, timeoutMs = 60_000): Promise<string> {
    try {
      // A pane whose TUI exited will not show it: fail at once.
      await until(() => pattern.test(this.screen()) || /Pane is dead/.test(this.screen()), what, timeoutMs);
      if (!pattern.test(this.screen())) throw new Error(`The TUI exited before showing ${what}.`);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- screen ---\n${this.screen()}`);
    }
    return this.screen();
  }

  kill(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * A WebSocket proxy on 127.0.0.1 in front of an app-server URL: the client's Authorization header is
 * passed on, and every frame both ways is kept (`fromClient`, `fromServer`).
 */
export class RecordingProxy {
  readonly fromClient: Message[] = [];
  readonly fromServer: Message[] = [];
  /** The same frames per connection (request ids repeat across connections: `codex resume` opens two). */
  readonly connections: { fromClient: Message[]; fromServer: Message[] }[] = [];
  private constructor(
    private readonly server: WebSocketServer,
    readonly port: number,
  ) {}

  static async start(upstream: string): Promise<RecordingProxy> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const address = server.address();
    const proxy = new RecordingProxy(server, typeof address === 'object' && address ? address.port : 0);
    server.on('connection', (client, request) => {
      const connection = { fromClient: [] as Message[], fromServer: [] as Message[] };
      proxy.connections.push(connection);
      const headers = request.headers.authorization ? { authorization: request.headers.authorization } : {};
      const target = new WebSocket(upstream, { headers });
      const queued: string[] = [];
      target.on('open', () => {
        for (const line of queued.splice(0)) target.send(line);
      });
      client.on('message', (data) => {
        const line = String(data);
        proxy.fromClient.push(JSON.parse(line) as Message);
        connection.fromClient.push(JSON.parse(line) as Message);
        if (target.readyState === WebSocket.OPEN) target.send(line);
        else queued.push(line);
      });
      target.on('message', (data) => {
        const line = String(data);
        proxy.fromServer.push(JSON.parse(line) as Message);
        connection.fromServer.push(JSON.parse(line) as Message);
        if (client.readyState === WebSocket.OPEN) client.send(line);
      });
      target.on('close', () => client.close());
      target.on('error', () => client.close());
      client.on('close', () => target.close());
    });
    return proxy;
  }

  /** The methods the client called, in order, each once. */
  methodsCalled(): string[] {
    const methods = this.fromClient.flatMap((message) =>
      typeof message.method === 'string' && message.id !== undefined ? [message.method] : [],
    );
    return [...new Set(methods)];
  }

  /** Requests the server answered with an error: method and message. */
  errorsAnswered(): string[] {
    return this.fromServer.flatMap((message) => {
      if (!message.error) return [];
      const asked = this.fromClient.find((sent) => sent.id === message.id && sent.method);
      return [`${asked?.method ?? '?'}: ${message.error.message}`];
    });
  }

  close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
