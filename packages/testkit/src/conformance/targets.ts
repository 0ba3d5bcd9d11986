// Conformance targets for the pinned harness CLIs in harness-clis/: each builds the harness through
// the public registry, pointed at the scripted model server by the testkit's hermetic home.
// Used by the real-CLI test tier, `reins conformance` and `reins demo`.
import type { HarnessId } from '@reins/core';
import { type AnyHarnessOptions, createHarness } from '@reins/harnesses';
import { type HarnessLaunch, harnessLaunch, privateTmpWrapper } from '../harness-homes/index.js';
import { type HarnessBinary, harnessBinary, harnessClisDir } from '../hermetic/binaries.js';
import { makeTempHome, type TempHome } from '../hermetic/temp-home.js';
import type { ConformanceModels, ConformanceTarget } from './target.js';

/** The switch the ACP presets add themselves; the home builders list it too. */
const ACP_MODE_ARGS = new Set(['--acp', 'acp']);
const ALTERNATE_MODEL = 'fake-model-2';

/** Where a behaviour runs: its folder (the session workspace is inside) and its temp home. */
interface RunPlace {
  workdir: string;
  tempHome: TempHome;
}

type OptionsFor = (launch: HarnessLaunch, binary: HarnessBinary, place: RunPlace) => AnyHarnessOptions;

const nativeBinary: OptionsFor = (launch, binary) => ({ binaryPath: binary.command, baseEnv: launch.env });
const acpAgent: OptionsFor = (launch, binary) => ({
  binaryPath: binary.command,
  binaryArgs: binary.args,
  baseEnv: launch.env,
  extraArgs: withoutPresetArgs(launch.home.args),
});

/** The home's launch args minus what the ACP preset adds itself (the ACP switch, `--model <id>`). */
function withoutPresetArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--model') i++;
    else if (!ACP_MODE_ARGS.has(arg)) out.push(arg);
  }
  return out;
}

interface Recipe {
  options: OptionsFor;
  /** The model to start on, when the harness names the home's first model differently. */
  primary?: string;
  /** The model to switch to, when the harness does not take the extra fake model as is. */
  alternate?: string;
  /** What the model server then sees, when that differs from `alternate`. */
  alternateOnWire?: string;
  notApplicable?: Partial<Record<string, string>>;
  knownLimitations?: Partial<Record<string, string>>;
}

const RECIPES: Partial<Record<HarnessId, Recipe>> = {
  codex: { options: nativeBinary },
  'claude-code': { options: nativeBinary },
  // Pi's CLI is a Node script with a shebang; the home's PATH has the right node first.
  pi: { options: (launch, binary) => ({ binaryPath: binary.args[0] ?? binary.command, baseEnv: launch.env }) },
  gemini: {
    options: acpAgent,
    alternate: 'gemini-2.5-pro',
    knownLimitations: {
      // toToolCallContent drops a non-string returnDisplay, and the pty shell's display is ANSI cells.
      'tool call lifecycle': 'Gemini CLI 0.61.0 sends no shell output over ACP while its interactive (pty) shell is on',
      'resume in a new process': 'Gemini CLI 0.61.0 cannot session/load a session made by another process (-32603)',
      fork: 'Gemini CLI 0.61.0 advertises no session/fork (sessionCapabilities.fork)',
      history: 'Gemini CLI 0.61.0 advertises no session/list (sessionCapabilities.list)',
    },
  },
  // Qwen 0.24.4 names models with their auth type.
  'qwen-code': {
    options: acpAgent,
    primary: 'fake-model(openai)',
    alternate: `${ALTERNATE_MODEL}(openai)`,
    alternateOnWire: ALTERNATE_MODEL,
    knownLimitations: { fork: 'Qwen Code 0.24.4 advertises no session/fork (sessionCapabilities.fork)' },
  },
  copilot: {
    options: acpAgent,
    knownLimitations: { fork: 'GitHub Copilot CLI 1.0.102 advertises no session/fork (sessionCapabilities.fork)' },
  },
  // OpenCode 1.18.33 names models provider/model.
  opencode: {
    options: acpAgent,
    primary: 'fake/fake-model',
    alternate: `fake/${ALTERNATE_MODEL}`,
    alternateOnWire: ALTERNATE_MODEL,
  },
  'claude-agent-acp': { options: acpAgent },
  // codex-acp 0.16.0 takes the home's catalog ids as they are (set_config_option on its `model` option).
  'codex-acp': {
    options: acpAgent,
    knownLimitations: { fork: 'codex-acp 0.16.0 advertises no session/fork (sessionCapabilities.fork)' },
  },
  // Sessions start a local gateway (the adapter's default mode; shared while one is open), in the home's private /tmp;
  // resume therefore really is a new gateway process on the same state, and close() must end it.
  openclaw: {
    options: (launch, binary, place) => ({
      binaryPath: binary.args[0] ?? binary.command,
      baseEnv: launch.env,
      // The gateway's private /tmp must still show the session workspace (it lives under /tmp too).
      gatewayCommandPrefix: privateTmpWrapper(place.tempHome, [harnessClisDir(), place.workdir]),
      // 2026.9.6 opens its port 15-19 s after spawn (far more on a loaded 2-core machine).
      connectTimeoutMs: 240_000,
    }),
    alternate: `fake/${ALTERNATE_MODEL}`,
    alternateOnWire: ALTERNATE_MODEL,
  },
};

export function conformanceTargetIds(): HarnessId[] {
  return Object.keys(RECIPES) as HarnessId[];
}

export interface TargetOverrides {
  /** Run this binary instead of the pinned one (`reins conformance` checks the user's own). */
  binary?: HarnessBinary;
  /** Merged into the harness options. */
  harnessOptions?: AnyHarnessOptions;
}

export function conformanceTarget(id: HarnessId, overrides: TargetOverrides = {}): ConformanceTarget {
  const recipe = RECIPES[id];
  if (!recipe)
    throw new Error(`No conformance target for ${id}: the pinned CLIs cover ${conformanceTargetIds().join(', ')}.`);
  return {
    id,
    ...(recipe.notApplicable ? { notApplicable: recipe.notApplicable } : {}),
    ...(recipe.knownLimitations ? { knownLimitations: recipe.knownLimitations } : {}),
    async setup(server, workdir) {
      const tempHome = await makeTempHome(`reins-${id}-`);
      const binary = overrides.binary ?? harnessBinary(id as Parameters<typeof harnessBinary>[0]);
      const launch = await harnessLaunch(id as Parameters<typeof harnessLaunch>[0], {
        modelServerUrl: server.url,
        tempHome,
        binary,
        extraModels: [ALTERNATE_MODEL],
      });
      const harness = await createHarness(id, {
        ...recipe.options(launch, binary, { workdir, tempHome }),
        ...overrides.harnessOptions,
      });
      const models: ConformanceModels = {
        primary: recipe.primary ?? launch.home.models[0] ?? 'fake-model',
        alternate: recipe.alternate ?? ALTERNATE_MODEL,
        ...(recipe.alternateOnWire ? { alternateOnWire: recipe.alternateOnWire } : {}),
      };
      return { harness, models, dispose: () => tempHome.cleanup() };
    },
  };
}
