#!/usr/bin/env node
// The `reins` executable: a thin bin over main().
import { processIo } from './io.js';
import { main } from './main.js';

main(process.argv.slice(2), processIo()).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`reins: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
