// The protocol version the bridge says it speaks is the one its wire types were generated from.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CODEX_PROTOCOL_VERSION } from './wire.js';

describe('CODEX_PROTOCOL_VERSION', () => {
  it('is the version of the generated Codex wire types', () => {
    const generated = new URL('../../../harnesses/src/codex/wire/generated/VERSION', import.meta.url);
    expect(readFileSync(generated, 'utf8').split('\n')[0]).toBe(`codex-cli ${CODEX_PROTOCOL_VERSION}`);
  });
});
