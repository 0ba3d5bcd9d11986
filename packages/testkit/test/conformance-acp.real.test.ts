// Conformance lanes of the ACP agents (support/conformance-lanes.ts), current and previous pins.
import { conformanceLanes } from './support/conformance-lanes.js';

conformanceLanes('acp');
