// Conformance lane of OpenClaw (support/conformance-lanes.ts): on its own because each behaviour starts a
// gateway (15-40 s), which makes it the longest lane.
import { conformanceLanes } from './support/conformance-lanes.js';

conformanceLanes('openclaw');
