// `reins console --demo`: the console on a throwaway daemon that runs the pinned harness CLIs on
// the embedded scripted model, so a newcomer with no account clicks through a real session.
//
// The harness CLIs run only inside a loopback-only network namespace (the testkit's hermetic
// launcher), whose 127.0.0.1 the host's browser cannot reach. One door is opened, and only for the
// console's port: inside, a relay takes connections on a Unix socket in a private folder (a socket
// file belongs to the file system, not to a network namespace) and passes them to the daemon on
// the namespace's 127.0.0.1:<port>; outside, this process listens on the host's 127.0.0.1:<port>
// (the same number, so the page's origin and Host are what the daemon expects) and passes each
// connection to that socket. Nothing else inside can reach out: its only interface stays loopback.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { HarnessId } from '@reins/core';
import { createLogger, type DaemonOptions, startDaemon } from '@reins/daemon';
import { HARNESS_PINS, harnessManifest, type PinnedHarnessId } from '@reins/harnesses';
import {
  harnessBinary,
  harnessLaunch,
  isHermetic,
  type ModelServer,
  makeTempHome,
  type RecordedRequest,
  reply,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { type CliIo, EXIT } from '../io.js';
import { consoleLink, openInBrowser } from './console-link.js';

/** Set by the outside half for the inside half: the relay's socket and the port to serve on. */
const RELAY_ENV = 'REINS_CONSOLE_DEMO_RELAY';
const PORT_ENV = 'REINS_CONSOLE_DEMO_PORT';
/** The line the inside half prints once it serves (the token goes to the outside half only). */
const READY = 'reins-console-demo-ready ';
/** The harnesses the demo runs (their manifests' testing.demo), when their pinned CLI is installed. */
const DEMO_HARNESSES = HARNESS_PINS.map((pin) => pin.id).filter((id) => harnessManifest(id)?.testing?.demo);

export interface DemoOptions {
  port: number;
  open: boolean;
}

export async function consoleDemo(io: CliIo, options: DemoOptions): Promise<number> {
  if (io.env[RELAY_ENV]) {
    // The inside half, started by the outside half through the hermetic launcher.
    if (!(await isHermetic())) {
      io.stderr.write('reins console --demo: the inside half runs only in a loopback-only network namespace.\n');
      return EXIT.failed;
    }
    return inside(io);
  }
  const installed = DEMO_HARNESSES.filter(isInstalled);
  if (installed.length === 0) {
    io.stderr.write(
      'No pinned harness CLI is installed for the demo. Run `npm run setup` in the Reins checkout\n' +
        '(it installs the exact CLI versions Reins is tested with into harness-clis/), then `reins console --demo` again.\n',
    );
    return EXIT.usage;
  }
  return outside(io, options);
}

function isInstalled(id: PinnedHarnessId): boolean {
  try {
    harnessBinary(id);
    return true;
  } catch {
    return false;
  }
}

function hermeticLauncher(): string {
  return fileURLToPath(new URL('../bin/hermetic.mjs', import.meta.resolve('@reins/testkit')));
}

/** Passes one connection to another, both ways, and ends both when either ends. */
function splice(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end);
  b.on('error', end);
  a.on('close', end);
  b.on('close', end);
}

function listen(server: Server, target: number | string, host?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if (typeof target === 'string') server.listen(target, done);
    else server.listen(target, host, done);
  });
}

// ---- outside the namespace: the one door, for the console's port -------------------------------------

async function outside(io: CliIo, options: DemoOptions): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'reins-console-demo-'));
  const socketPath = join(dir, 'console.sock');
  const door = createServer((browser) => splice(browser, connect(socketPath)));
  const cleanup = async () => {
    door.close();
    await rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  };
  try {
    await listen(door, options.port, '127.0.0.1');
  } catch (error) {
    await cleanup();
    io.stderr.write(`reins console --demo: cannot listen on 127.0.0.1:${options.port}: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const address = door.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  io.stdout.write('Starting the demo: the pinned harness CLIs on the scripted model, in a loopback-only namespace…\n');
  const child: ChildProcess = spawn(
    process.execPath,
    [hermeticLauncher(), '--', process.execPath, process.argv[1] ?? '', 'console', '--demo'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...io.env, [RELAY_ENV]: socketPath, [PORT_ENV]: String(port), REINS_HOME: join(dir, 'reins') },
    },
  );
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 130 : 1))),
  );
  const stop = () => {
    child.kill('SIGTERM');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    let ready = false;
    lines.on('line', (line) => {
      if (!ready && line.startsWith(READY)) {
        ready = true;
        const { token, workspace } = JSON.parse(line.slice(READY.length)) as { token: string; workspace: string };
        const link = consoleLink({ url: `ws://127.0.0.1:${port}`, token }, workspace);
        io.stdout.write(`\nReins console (demo): ${link}\nPress Ctrl+C to stop the demo.\n`);
        if (options.open) void openInBrowser(link, dir, io);
        return;
      }
      io.stdout.write(`${line}\n`);
    });
    const code = await exited;
    return ready && (code === 0 || code === 130 || code === 143) ? EXIT.completed : code || EXIT.failed;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await cleanup();
  }
}

// ---- inside the namespace: model server, pinned CLIs, daemon, relay -------------------------------------

async function inside(io: CliIo): Promise<number> {
  const relayPath = io.env[RELAY_ENV];
  const port = Number(io.env[PORT_ENV] ?? 0);
  const server = await startModelServer({ defaultReply: reply().text(WELCOME) });
  const homes: TempHome[] = [];
  const work = await makeTempHome('reins-console-demo-work-');
  homes.push(work);
  const workspace = join(work.dir, 'workspace');
  await makeWorkspace(workspace);
  scriptDemo(server, workspace);

  const harnessOptions: NonNullable<DaemonOptions['harnessOptions']> = {};
  const harnesses: HarnessId[] = [];
  for (const id of DEMO_HARNESSES.filter(isInstalled)) {
    const tempHome = await makeTempHome(`reins-console-demo-${id}-`);
    homes.push(tempHome);
    const binary = harnessBinary(id);
    const launch = await harnessLaunch(id, { modelServerUrl: server.url, tempHome, binary });
    harnessOptions[id] = { binaryPath: binary.command, baseEnv: launch.env, requestTimeoutMs: 60_000 };
    harnesses.push(id);
  }
  const home = io.env.REINS_HOME ?? join(work.dir, 'reins');
  const daemon = await startDaemon({ port, home, harnesses, harnessOptions, logger: createLogger({ level: 'warn' }) });
  const relay = createServer((outsider) => splice(outsider, connect(daemon.port, '127.0.0.1')));
  await listen(relay, relayPath as string);

  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  io.stdout.write(`${READY}${JSON.stringify({ token: daemon.token, workspace })}\n`);
  io.stdout.write(`Harnesses: ${harnesses.join(', ')}. Workspace: ${workspace}\n`);
  await stopped;
  relay.close();
  await daemon.close();
  await server.close();
  for (const temp of homes) await temp.cleanup();
  return EXIT.completed;
}

const WELCOME = [
  'Hello! This is the **Reins console demo**: a real harness CLI, talking to Reins’ embedded scripted model',
  '(no account, no network). Try one of these:',
  '',
  '- “run the tests”: a shell command, with its output and exit code',
  '- “write a note”: a file change, with its diff',
  '- “make a plan”: reasoning and a plan',
  '- “tell me a long story”: a slow answer to interrupt with Esc',
].join('\n');

const LONG_STORY = Array.from(
  { length: 12 },
  (_, index) => `Chapter ${index + 1}: the agent read the code, ran the tests, and wrote down what it found.`,
).join(' ');

async function makeWorkspace(workspace: string): Promise<void> {
  await mkdir(join(workspace, 'src'), { recursive: true });
  await writeFile(join(workspace, 'README.md'), '# Demo workspace\n\nA tiny project for the Reins console demo.\n');
  await writeFile(join(workspace, 'src', 'add.js'), 'export const add = (a, b) => a + b;\n');
}

/** The scripted model's answers, by what the user asked (and, for a tool's follow-up round, which tool ran last). */
function scriptDemo(server: ModelServer, workspace: string): void {
  const notes = join(workspace, 'NOTES.md');
  const toolRound = (request: RecordedRequest) => request.userText === '';
  const lastOf = (request: RecordedRequest, markers: string[]) => {
    const body = JSON.stringify(request.body);
    return markers.reduce((best, marker) => (body.lastIndexOf(marker) > body.lastIndexOf(best) ? marker : best));
  };
  const persistent = { persistent: true };
  // What the user typed: harnesses put their own context in user messages too (Codex 0.171.0 an
  // <environment_context> block, Claude Code 2.1.x <system-reminder> blocks), so those go first.
  const asked = (pattern: RegExp) => (request: RecordedRequest) => {
    const text = request.userText.replace(/<([a-z_][\w -]*)>[\s\S]*?<\/\1>/gi, '');
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    return !toolRound(request) && pattern.test(lines.at(-1) ?? '');
  };
  server.when(
    (request) => toolRound(request) && lastOf(request, ['3 passed', 'NOTES.md']) === '3 passed',
    reply().text('All **3 tests pass**. Nothing to fix.'),
    persistent,
  );
  server.when(
    (request) => toolRound(request) && lastOf(request, ['3 passed', 'NOTES.md']) === 'NOTES.md',
    reply().text('Wrote `NOTES.md` in the workspace: the card above shows the diff.'),
    persistent,
  );
  server.when(toolRound, reply().text('Done.'), persistent);
  server.when(
    /test|check|run/i,
    reply().reasoning('The project has a test script: run it.').shell('echo "3 passed"'),
    persistent,
  );
  server.when(
    asked(/note|write|file|edit/i),
    reply().writeFile(notes, '# Notes\n\nWritten by the Reins console demo.\n'),
    persistent,
  );
  server.when(
    asked(/plan|think|how|why/i),
    reply()
      .reasoning('Read the workspace first, then decide what to change, then check it.')
      .text(
        'Here is how I would go about it:\n\n1. Read `README.md` and `src/add.js`.\n2. Run the tests.\n3. Write down what I found in `NOTES.md`.',
      ),
    persistent,
  );
  server.when(asked(/long|story|slow|stop/i), reply().text(LONG_STORY).delayMs(250), persistent);
}
