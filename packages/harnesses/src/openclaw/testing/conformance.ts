// How the conformance suite runs OpenClaw. Sessions start a local gateway (the adapter's default mode; shared
// while one is open), in the home's private /tmp; resume therefore really is a new gateway process on the
// same state, and close() must end it.
import { CONFORMANCE_ALTERNATE_MODEL, type ConformanceRecipe } from '../../testing.js';

export const OPENCLAW_CONFORMANCE: ConformanceRecipe = {
  options: ({ binary, home, workdir, tempHome }, kit) => ({
    binaryPath: binary.args[0] ?? binary.command,
    baseEnv: home.env,
    // The gateway's private /tmp must still show the session workspace (it lives under /tmp too).
    gatewayCommandPrefix: kit.privateTmpWrapper(tempHome, [kit.harnessClisDir(), workdir]),
    // 2026.9.6 opens its port 15-19 s after spawn (far more on a loaded 2-core machine).
    connectTimeoutMs: 240_000,
  }),
  alternate: `fake/${CONFORMANCE_ALTERNATE_MODEL}`,
  alternateOnWire: CONFORMANCE_ALTERNATE_MODEL,
};
