// The version of this build, read from the CLI's own package.json (one source of truth).
import { readFileSync } from 'node:fs';

export const REINS_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
