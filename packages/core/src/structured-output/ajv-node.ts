// ajv as Node gets it (package.json "imports" `#ajv`, the `node` condition): required on the first
// schema, not when @reins/core is imported. Its module graph is ~50 ms of a process's start (a third of
// importing @reins/core) that every daemon, bot on @reins/client and library user paid, and only a turn
// with an output schema needs it. ajv is CommonJS, so a synchronous require keeps validation synchronous.
import { createRequire } from 'node:module';
import type { AjvClasses } from './ajv.js';

let loaded: AjvClasses | undefined;

export function loadAjv(): AjvClasses {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    loaded = {
      Ajv: (require('ajv') as typeof import('ajv')).Ajv,
      Ajv2020: (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020,
    };
  }
  return loaded;
}
