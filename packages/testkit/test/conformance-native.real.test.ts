// Conformance lanes of the harnesses with their own protocols (Codex, Claude Code, Pi, and any target no
// other conformance-*.real.test.ts file names); the lanes themselves are in support/conformance-lanes.ts.
import { conformanceLanes } from './support/conformance-lanes.js';

conformanceLanes('rest');
