#!/usr/bin/env node
// Installed as `reins`. The compiled CLI lives in dist/ (npm run build).
import('../dist/bin.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('reins: the CLI is not built yet; run `npm run build` in the Reins checkout.\n');
    process.exit(2);
  }
  throw error;
});
