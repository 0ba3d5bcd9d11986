// ajv as bundlers and browsers get it (package.json "imports" `#ajv`, the default): imported with this
// module. Node gets ajv-node.ts instead, which loads it on the first schema.
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

export interface AjvClasses {
  Ajv: typeof Ajv;
  Ajv2020: typeof Ajv2020;
}

export function loadAjv(): AjvClasses {
  return { Ajv, Ajv2020 };
}
