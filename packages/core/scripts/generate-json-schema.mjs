// Writes packages/core/schema/events.schema.json from the built zod schemas (run after `tsc --build`).
import { writeFileSync } from 'node:fs';
import { protocolJsonSchemaText } from '../dist/index.js';

const target = new URL('../schema/events.schema.json', import.meta.url);
writeFileSync(target, protocolJsonSchemaText());
console.log(`wrote ${target.pathname}`);
