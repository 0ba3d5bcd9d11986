// The ACP list is the preset folders: every folder under presets/ has its manifest in ACP_MANIFESTS once,
// each agent's manifest carries the preset it was made from, and its load makes the ACP harness on it.
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AcpHarness } from './adapter.js';
import { ACP_MANIFESTS, ACP_PINS, acpPreset } from './manifest.js';

const presets = fileURLToPath(new URL('./presets/', import.meta.url));
const folders = readdirSync(presets).filter((name) => statSync(`${presets}${name}`).isDirectory());

describe('ACP_MANIFESTS', () => {
  it('lists each preset folder once, by its id', () => {
    expect(ACP_MANIFESTS.map((manifest) => manifest.id).sort()).toEqual([...folders].sort());
  });

  it.each(folders.filter((id) => id !== 'acp'))(
    '%s: the manifest carries its preset and loads a harness on it',
    async (id) => {
      const manifest = ACP_MANIFESTS.find((candidate) => candidate.id === id);
      const preset = acpPreset(manifest?.id ?? 'acp');
      expect(preset.id).toBe(id);
      expect(manifest).toMatchObject({ displayName: preset.displayName, binary: preset.binary });
      const harness = await manifest?.load({});
      expect(harness).toBeInstanceOf(AcpHarness);
      expect((harness as AcpHarness).preset).toBe(preset);
    },
  );

  it('pins exactly the agents whose manifest has a pin, in list order', () => {
    expect(ACP_PINS.map((pin) => pin.id)).toEqual(
      ACP_MANIFESTS.flatMap((manifest) => (manifest.testing?.pin ? [manifest.id] : [])),
    );
  });

  it('has no preset for the generic acp harness, and says so', () => {
    expect(() => acpPreset('acp')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });
});
