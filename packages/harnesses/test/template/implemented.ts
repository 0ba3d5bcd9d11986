// What the template adapter maps (the `implemented` layer), apart from the manifest so the adapter needs no manifest.
import type { ImplementedCapabilities } from '@reins/core';

export const TEMPLATE_IMPLEMENTED: ImplementedCapabilities = { queue: 'adapter', structuredOutput: 'emulated' };
