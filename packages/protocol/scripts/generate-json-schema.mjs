// Writes packages/protocol/schema/protocol.schema.json from the built zod schemas (run after `tsc --build`).
import { writeFileSync } from 'node:fs';
import { wireJsonSchemaText } from '../dist/index.js';

const target = new URL('../schema/protocol.schema.json', import.meta.url);
writeFileSync(target, wireJsonSchemaText());
console.log(`wrote ${target.pathname}`);
