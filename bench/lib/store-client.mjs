#!/usr/bin/env node
// The client side of figure 6b, in its own process so that it does not share the daemon's event
// loop: connects to the daemon (url and token in argv), creates a codex session (the daemon points
// it at the bench emitter), sends one turn, and takes the delay of every text delta on arrival
// (monotonic clock now minus the stamp the emitter put in the delta). Prints the delays (µs) as JSON.
import { connect } from '@reins/client';
import { WebSocket } from 'ws';

const [url, token, cwd] = process.argv.slice(2);
const stampOf = (text) => BigInt(text.slice(text.indexOf('@') + 1));
const client = await connect({ url, token, WebSocket, requestTimeoutMs: 120_000 });
const session = await client.createSession('codex', { cwd });
const delays = [];
let outcome;
const consumer = (async () => {
  for await (const event of session.events) {
    if (event.type === 'item.delta' && event.kind === 'text') {
      delays.push(Number(process.hrtime.bigint() - stampOf(event.text)) / 1000);
    } else if (event.type === 'turn.completed') {
      outcome = event.outcome.status;
      return;
    }
  }
})();
await session.send('go');
await consumer;
await session.close();
client.close();
process.stdout.write(`${JSON.stringify({ outcome, delays })}\n`);
