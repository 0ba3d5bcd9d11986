// The caller's JSON Schema compiled by ajv (draft-07 or 2020-12), once per schema object. Its own
// module because ajv's module graph is a start-up cost most turns never use: the CLI's bundle puts it in
// a file of its own, loaded on the first schema (packages/cli/scripts/bundle.mjs, LAZY_MODULES), so it
// exports functions only and imports nothing of core's at run time (that would be a second copy there).
// In Node ajv itself is loaded on the first schema too (`#ajv`: ajv-node.ts there, ajv.ts elsewhere).

import type { Ajv, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { loadAjv } from '#ajv';
import type { JsonSchema } from '../spec.js';

let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** The schema's validator; throws ajv's own error when the schema itself is not valid JSON Schema. */
export function validatorFor(schema: JsonSchema): ValidateFunction {
  const cached = compiled.get(schema);
  if (cached) return cached;
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  let validate: ValidateFunction;
  if (/draft-0[4-7]/.test(dialect)) {
    draft7 ??= new (loadAjv().Ajv)({ strict: false, allErrors: true });
    validate = draft7.compile(schema);
  } else {
    draft2020 ??= new (loadAjv().Ajv2020)({ strict: false, allErrors: true });
    validate = draft2020.compile(schema);
  }
  compiled.set(schema, validate);
  return validate;
}
