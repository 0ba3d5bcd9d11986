import { HARNESS_IDS, ReinsError } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { availableHarnessIds, createHarness } from './registry.js';

describe('harness registry', () => {
  it('builds a harness whose id is the one asked for, for every available id', async () => {
    for (const id of availableHarnessIds()) {
      const options = id === 'acp' ? { command: 'my-agent --acp' } : {};
      const harness = await createHarness(id, options);
      expect(harness.id).toBe(id);
    }
  });

  it('has an adapter for every binding id', () => {
    expect(availableHarnessIds()).toEqual([...HARNESS_IDS]);
  });

  it('rejects an unknown id with the known ones listed', async () => {
    const error = await createHarness('cursor').catch((e: unknown) => e);
    expect(ReinsError.isInstance(error) && error.code).toBe('invalid_input');
    expect((error as Error).message).toMatch(/Known harnesses: claude-code, codex/);
  });

  it('asks for the command of a generic ACP agent', async () => {
    const previous = process.env.REINS_ACP_COMMAND;
    delete process.env.REINS_ACP_COMMAND;
    try {
      await expect(createHarness('acp')).rejects.toMatchObject({ code: 'invalid_input', message: /REINS_ACP_COMMAND/ });
    } finally {
      if (previous !== undefined) process.env.REINS_ACP_COMMAND = previous;
    }
  });
});
