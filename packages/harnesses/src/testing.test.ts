// The harnesses' test side agrees with their manifests: HARNESS_PINS is exactly the manifests' pins, each
// pin names the npm package the manifest installs, every pin tells the tests how to check its version, and
// the SDKs pins name are the adapters' own dependencies; what a pin says --version prints, discovery parses back.
// A manifest's fake is an executable where it says, also when the manifest runs from the built dist/.
import { accessSync, constants, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HARNESS_MANIFESTS, HARNESS_PINS } from './manifests.js';
import { defaultParseVersion } from './runtime/discovery.js';
import { testingSource } from './testing.js';

describe('harness pins', () => {
  it('HARNESS_PINS lists the testing.pin of every manifest that has one, in manifest order', () => {
    const fromManifests = HARNESS_MANIFESTS.flatMap((manifest) =>
      manifest.testing?.pin ? [manifest.testing.pin] : [],
    );
    expect([...HARNESS_PINS]).toEqual(fromManifests);
    expect(HARNESS_PINS.length).toBeGreaterThan(0);
  });

  it.each(HARNESS_PINS.map((pin) => [pin.id, pin] as const))(
    '%s: pins the package its manifest installs, and says how its version shows',
    (id, pin) => {
      const manifest = HARNESS_MANIFESTS.find((candidate) => candidate.id === id);
      expect(pin.packageName).toBe(manifest?.npmPackage);
      const shows = 'versionOutput' in pin || 'initializeName' in pin;
      expect(shows).toBe(true);
    },
  );
});

describe('pinned SDKs', () => {
  it('every SDK a pin names is a dependency of @reins/harnesses (the canary reads its version there)', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const sdks = HARNESS_PINS.flatMap((pin) => ('sdk' in pin ? [pin.sdk] : []));
    expect(sdks.length).toBeGreaterThan(0);
    expect(sdks.filter((sdk) => !(sdk in manifest.dependencies))).toEqual([]);
  });
});

describe('what --version prints', () => {
  const printing = HARNESS_PINS.flatMap((pin) => ('versionOutput' in pin ? [[pin.id, pin] as const] : []));

  it.each(printing)("%s: discovery's parser reads every tested version back from it", (id, pin) => {
    const manifest = HARNESS_MANIFESTS.find((candidate) => candidate.id === id);
    const parse = manifest?.binary?.parseVersion ?? defaultParseVersion;
    expect(manifest?.testedVersions.length).toBeGreaterThan(0);
    for (const version of manifest?.testedVersions ?? []) expect(parse(pin.versionOutput(version))).toBe(version);
  });
});

describe("a harness folder's test side", () => {
  it('testingSource reads a file beside the module, and the same file in src/ from a built dist/', () => {
    expect(testingSource('file:///r/packages/harnesses/src/pi/manifest.js', './testing/fake.mjs')).toBe(
      '/r/packages/harnesses/src/pi/testing/fake.mjs',
    );
    expect(testingSource('file:///r/packages/harnesses/dist/pi/manifest.js', './testing/fake.mjs')).toBe(
      '/r/packages/harnesses/src/pi/testing/fake.mjs',
    );
  });

  it.each(
    HARNESS_MANIFESTS.flatMap((manifest) => (manifest.testing?.fake ? [[manifest.id, manifest.testing.fake]] : [])),
  )('%s: its fake is an executable file', (_id, fake) => {
    expect(() => accessSync(fake, constants.X_OK)).not.toThrow();
  });
});
