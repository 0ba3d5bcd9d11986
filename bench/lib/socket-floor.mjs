// The floor under the daemon's fan-out CPU per event (figure 8b): the same kind of session/event
// frames written to as many loopback WebSocket clients by a bare Node loop that does nothing else (no
// harness, no store, no JSON): every complete frame made once, one joined write per client per tick of
// `perTick` events. Its CPU per event taken in is what the kernel's loopback writes cost at that batch
// size, which no daemon change below the protocol (one frame per event per client) can go under.
// The clients are one process of their own (like bench/lib/fanout-client.mjs) that count frames.
import { spawn } from 'node:child_process';
import { deadline } from './rpc.mjs';

const CLIENTS_SCRIPT = `
const { WebSocket } = require(process.env.BENCH_WS);
const [url, clients, frames] = process.argv.slice(1);
let received = 0;
for (let i = 0; i < Number(clients); i++) {
  const socket = new WebSocket(url);
  socket.on('message', () => { if (++received === Number(clients) * Number(frames)) process.exit(0); });
  socket.on('open', () => process.stdout.write('open\\n'));
}`;

/** A text frame as a server sends it (unmasked, FIN set). */
function textFrame(payload) {
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x81, length])
      : length < 65_536
        ? Buffer.from([0x81, 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x81, 127]), Buffer.from(new BigUint64Array([BigInt(length)]).buffer).reverse()]);
  return Buffer.concat([head, payload]);
}

/**
 * CPU µs per event of writing `events` frames (made from `frameOf(seq)`, a session/event JSON text) to
 * `clients` sockets, `perTick` events per tick.
 */
export async function socketFloor({ events, clients, perTick, frameOf }) {
  const { WebSocketServer } = await import('ws');
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  const sockets = [];
  server.on('connection', (socket) => sockets.push(socket));
  const { createRequire } = await import('node:module');
  const child = spawn(
    process.execPath,
    ['-e', CLIENTS_SCRIPT, `ws://127.0.0.1:${server.address().port}`, String(clients), String(events)],
    {
      env: { ...process.env, BENCH_WS: createRequire(import.meta.url).resolve('ws') },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    let opened = 0;
    await deadline(
      new Promise((resolve) =>
        child.stdout.on('data', (chunk) => {
          opened += String(chunk).split('open').length - 1;
          if (opened >= clients && sockets.length >= clients) resolve();
        }),
      ),
      60_000,
      'socket floor clients',
    );
    const frames = Array.from({ length: events }, (_, index) => textFrame(Buffer.from(frameOf(index + 1))));
    const cpu = process.cpuUsage();
    for (let start = 0; start < events; start += perTick) {
      const joined = Buffer.concat(frames.slice(start, start + perTick));
      // ws 8 keeps the net.Socket in `_socket`: the frames go to it whole, as one write.
      for (const socket of sockets) socket._socket.write(joined);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const code = await deadline(exited, 120_000, 'socket floor clients reading');
    if (code !== 0) throw new Error(`the socket floor's clients exited with ${code}`);
    const used = process.cpuUsage(cpu);
    return Number(((used.user + used.system) / events).toFixed(1));
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const socket of sockets) socket.terminate();
    server.close();
  }
}
