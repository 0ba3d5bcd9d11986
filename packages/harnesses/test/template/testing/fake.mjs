#!/usr/bin/env node
// The template harness's fake executable: answers each prompt line with FAKE_TEMPLATE_REPLY (default
// "hello") and a done line; `--version` prints 1.0.0. Plain Node, no dependencies.
import { createInterface } from 'node:readline';

if (process.argv.includes('--version')) {
  process.stdout.write('line-template 1.0.0\n');
  process.exit(0);
}
const reply = process.env.FAKE_TEMPLATE_REPLY ?? 'hello';
for await (const line of createInterface({ input: process.stdin })) {
  let frame;
  try {
    frame = JSON.parse(line);
  } catch {
    continue;
  }
  if (frame?.type !== 'prompt') continue;
  process.stdout.write(`${JSON.stringify({ type: 'text', text: `${reply}: ${frame.text}` })}\n`);
  process.stdout.write(`${JSON.stringify({ type: 'done', stop: 'end_turn' })}\n`);
}
