// The template harness (a line protocol, wire.ts): what Reins knows without loading the adapter. Its id is
// written here once; a copy under a new id changes only this line (template.process.test.ts).
import type { HarnessId } from '@reins/core';
import type { HarnessManifest } from '../../src/manifest.js';
import { testingSource } from '../../src/testing.js';
import { TEMPLATE_INSTALL, templateBinary } from './discovery.js';
import { TEMPLATE_IMPLEMENTED } from './implemented.js';
import { TEMPLATE_CONFORMANCE } from './testing/conformance.js';

const ID = 'line-template' as HarnessId;
const DISPLAY_NAME = 'Line template';

export const TEMPLATE_MANIFEST: HarnessManifest = {
  id: ID,
  displayName: DISPLAY_NAME,
  binary: templateBinary(ID),
  install: TEMPLATE_INSTALL,
  implemented: TEMPLATE_IMPLEMENTED,
  testedVersions: ['1.0.0'],
  testing: {
    conformance: TEMPLATE_CONFORMANCE,
    fake: testingSource(import.meta.url, './testing/fake.mjs'),
    tools: { shell: [{ name: 'run', args: 'command' }], write: [] },
  },
  load: async (options) =>
    (await import('./index.js')).createTemplateHarness({ id: ID, displayName: DISPLAY_NAME }, options),
};
