// The fake harness executables the process tier runs the adapters against: each harness folder's
// testing/fake.mjs, named by its manifest's testing part (docs/architecture/adding-a-harness.md).
import { HARNESS_MANIFESTS, type HarnessManifest } from '@reins/harnesses';

/** The ids whose manifest names a fake executable. */
export function fakeHarnessIds(manifests: readonly HarnessManifest[] = HARNESS_MANIFESTS): string[] {
  return manifests.flatMap((manifest) => (manifest.testing?.fake ? [manifest.id] : []));
}

/**
 * The absolute path of a harness's fake executable (a Node script with a shebang). `manifests` is for a
 * test that adds a harness of its own to the list.
 */
export function fakeHarnessPath(id: string, manifests: readonly HarnessManifest[] = HARNESS_MANIFESTS): string {
  const fake = manifests.find((manifest) => manifest.id === id)?.testing?.fake;
  if (fake) return fake;
  throw new Error(
    `No fake executable for harness "${id}": the harnesses with one are ${fakeHarnessIds(manifests).join(', ')} ` +
      "(a manifest's testing.fake, testing/fake.mjs in its folder).",
  );
}
