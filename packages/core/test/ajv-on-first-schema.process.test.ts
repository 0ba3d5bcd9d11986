// @reins/core in Node loads ajv on the first schema, not when it is imported (package.json "imports"
// `#ajv`, structured-output/ajv-node.ts): a daemon, a bot on @reins/client or a library user that never
// validates structured output does not pay for ajv's module graph at start-up.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const CORE = fileURLToPath(new URL('../dist/index.js', import.meta.url));

it('imports without ajv and loads it for the first schema', async () => {
  // A fresh Node process on the built package, as users import it; ajv is CommonJS, so whatever loads
  // it (a static import before, the require on first use now) leaves it in require.cache.
  const script = `
    import { createRequire } from 'node:module';
    const cache = createRequire(import.meta.url).cache;
    const ajvModules = () => Object.keys(cache).filter((path) => path.includes('/node_modules/ajv/')).length;
    const core = await import(${JSON.stringify(CORE)});
    const atImport = ajvModules();
    const wrong = core.validateAgainstSchema({ type: 'object', required: ['verdict'] }, { other: 1 });
    const right = core.validateAgainstSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }, 'yes');
    let invalid = '';
    try { core.assertValidSchema({ type: 'no-such-type' }); } catch (error) { invalid = error.code; }
    console.log(JSON.stringify({ atImport, afterUse: ajvModules(), wrong, right, invalid }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  const seen = JSON.parse(stdout);
  expect(seen.atImport).toBe(0);
  expect(seen.afterUse).toBeGreaterThan(0);
  expect(seen.wrong).toEqual({ ok: false, errors: ["/ must have required property 'verdict'"] });
  expect(seen.right).toEqual({ ok: true, value: 'yes' });
  expect(seen.invalid).toBe('invalid_input');
});
