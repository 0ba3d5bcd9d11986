// `reins daemon`: the Reins daemon in the foreground. It prints where it listens and where its
// daemon.json is (never the token), logs JSON lines on stderr, and on SIGINT or SIGTERM closes every
// session (ending each harness process group), every socket, removes daemon.json and exits 0.
import { parseArgs } from 'node:util';
import { startDaemon } from '@reins/daemon';
import { reinsHome } from '@reins/harnesses';
import { type CliIo, EXIT, UsageError } from '../io.js';

export const DAEMON_HELP = `Usage: reins daemon [--port <n>] [--allow-origin <url>]...

Runs the Reins daemon in the foreground: a WebSocket server on 127.0.0.1 (JSON-RPC, protocol 1)
through which a web UI, a bot or another program drives any harness with the same session model
(use @reins/client). Sessions belong to the daemon and survive a client's disconnect; a client
that reconnects resumes its event stream exactly where it left off.

The url, pid and a fresh secret token are written to $REINS_HOME/daemon.json (default ~/.reins,
mode 0600); every connection must present the token. Browsers are refused unless their origin is
allowed with --allow-origin. Logs are JSON lines on stderr. Ctrl+C (or SIGTERM) closes every session
and its harness processes, removes daemon.json and exits 0.

Options:
      --port <n>            port on 127.0.0.1 (default 0: any free port, see daemon.json)
      --allow-origin <url>  let web pages from this origin connect (repeatable), e.g. http://localhost:5173
  -h, --help                this help

Exit codes: 0 stopped by SIGINT/SIGTERM, 1 failed, 2 bad usage (or the port is taken).

Examples:
  reins daemon
  reins daemon --port 7777 --allow-origin http://localhost:5173`;

function parseDaemonArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
  }
}

export async function daemonCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseDaemonArgs(argv);
  if (values.help) {
    io.stdout.write(`${DAEMON_HELP}\n`);
    return EXIT.completed;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65_535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${values.port}".`);
  }
  const daemon = await startDaemon({
    port,
    allowOrigins: values['allow-origin'] ?? [],
    home: reinsHome(io.env),
  });
  io.stdout.write(`Reins daemon listening on ${daemon.url}\n`);
  io.stdout.write(`Connection details (url, token): ${daemon.infoPath}\n`);
  io.stdout.write('Press Ctrl+C to stop.\n');

  const code = await new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // A second signal: stop waiting. The exit hooks still kill every harness process group
        // and remove daemon.json.
        process.exit(EXIT.failed);
      }
      stopping = true;
      io.stdout.write(`Stopping (${signal}): closing every session...\n`);
      daemon.close().then(
        () => resolve(EXIT.completed),
        (error: unknown) => {
          io.stderr.write(`reins daemon: closing failed: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve(EXIT.failed);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  if (code === EXIT.completed) io.stdout.write('Stopped.\n');
  return code;
}
