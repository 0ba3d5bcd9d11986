// An ACP agent's manifest, made from its preset folder (presets/<id>/manifest.ts): the facts the preset
// holds (id, name, binary, tested versions) plus install hints and the test side; `load` makes the ACP
// harness on the preset, loading the adapter and the ACP SDK only then.
import type { HarnessManifest } from '../manifest.js';
import type { HarnessTesting } from '../testing.js';
import { ACP_IMPLEMENTED } from './implemented.js';
import type { AcpPreset } from './preset.js';

/** The manifest of an ACP agent Reins knows, with the preset it was made from. */
export type AcpPresetManifest<Testing extends HarnessTesting | undefined = HarnessTesting | undefined> = Omit<
  HarnessManifest,
  'testing'
> & { preset: AcpPreset; testing: Testing };

export function presetManifest<Testing extends HarnessTesting | undefined = undefined>(
  preset: AcpPreset,
  parts: { install: string; npmPackage?: string; testing?: Testing },
): AcpPresetManifest<Testing> {
  return {
    id: preset.id,
    displayName: preset.displayName,
    binary: preset.binary,
    install: parts.install,
    ...(parts.npmPackage ? { npmPackage: parts.npmPackage } : {}),
    implemented: ACP_IMPLEMENTED,
    testedVersions: preset.testedVersions,
    testing: parts.testing as Testing,
    preset,
    load: async (options) => new (await import('./adapter.js')).AcpHarness(preset, options),
  };
}
