// The generic `acp` harness: any Agent Client Protocol agent, given its command.
import { isAbsolute } from 'node:path';
import { ReinsError } from '@reins/core';
import { AcpHarness, type AcpHarnessOptions } from '../../adapter.js';
import { commandSpec } from '../../discovery.js';
import type { AcpPreset } from '../../preset.js';

export interface GenericAcpOptions extends AcpHarnessOptions {
  /** The agent's executable: an absolute path, or a name looked up on PATH. */
  command: string;
  /** Arguments that start it in ACP mode (`--acp`, `acp`, ...). */
  args?: string[];
  displayName?: string;
}

export function createAcpHarness(options: GenericAcpOptions): AcpHarness {
  if (!options?.command) {
    throw new ReinsError('invalid_input', 'The generic ACP harness needs the agent command (options.command).', {
      harness: 'acp',
    });
  }
  const preset: AcpPreset = {
    id: 'acp',
    displayName: options.displayName ?? `ACP agent (${options.command})`,
    binary: commandSpec(options.command),
    args: () => [...(options.args ?? [])],
    multiSession: true,
    quirks: {},
    testedVersions: [],
  };
  const binaryPath = options.binaryPath ?? (isAbsolute(options.command) ? options.command : undefined);
  return new AcpHarness(preset, { ...options, ...(binaryPath ? { binaryPath } : {}) });
}
