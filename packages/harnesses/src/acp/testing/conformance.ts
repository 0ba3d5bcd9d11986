// How the conformance suite runs each ACP agent on its pinned CLI: the preset with the located binary, the
// home's environment and the home's launch arguments minus what the preset adds itself; and what each
// agent is known not to do.
import { CONFORMANCE_ALTERNATE_MODEL, type ConformanceRecipe } from '../../testing.js';

/** The switch the ACP presets add themselves; the home builders list it too. */
const ACP_MODE_ARGS = new Set(['--acp', 'acp']);

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

const acpAgent: ConformanceRecipe['options'] = ({ binary, home }) => ({
  binaryPath: binary.command,
  binaryArgs: binary.args,
  baseEnv: home.env,
  extraArgs: withoutPresetArgs(home.args),
});

export const GEMINI_CONFORMANCE: ConformanceRecipe = {
  options: acpAgent,
  alternate: 'gemini-2.5-pro',
  knownLimitations: {
    // toToolCallContent drops a non-string returnDisplay, and the pty shell's display is ANSI cells.
    'tool call lifecycle': 'Gemini CLI 0.61.0 sends no shell output over ACP while its interactive (pty) shell is on',
    'resume in a new process': 'Gemini CLI 0.61.0 cannot session/load a session made by another process (-32603)',
    fork: 'Gemini CLI 0.61.0 advertises no session/fork (sessionCapabilities.fork)',
    history: 'Gemini CLI 0.61.0 advertises no session/list (sessionCapabilities.list)',
  },
};

/** Qwen 0.24.4 names models with their auth type. */
export const QWEN_CODE_CONFORMANCE: ConformanceRecipe = {
  options: acpAgent,
  primary: 'fake-model(openai)',
  alternate: `${CONFORMANCE_ALTERNATE_MODEL}(openai)`,
  alternateOnWire: CONFORMANCE_ALTERNATE_MODEL,
  knownLimitations: { fork: 'Qwen Code 0.24.4 advertises no session/fork (sessionCapabilities.fork)' },
  notApplicable: {
    'workspace posture blocks a write outside the cwd and allows one inside':
      'Qwen Code 0.24.4 asks its model an auto-approve question (non-streaming, one tool) before the shell command, which takes the scripted replies',
  },
};

export const COPILOT_CONFORMANCE: ConformanceRecipe = {
  options: acpAgent,
  knownLimitations: { fork: 'GitHub Copilot CLI 1.0.102 advertises no session/fork (sessionCapabilities.fork)' },
};

/** OpenCode 1.18.33 names models provider/model. */
export const OPENCODE_CONFORMANCE: ConformanceRecipe = {
  options: acpAgent,
  primary: 'fake/fake-model',
  alternate: `fake/${CONFORMANCE_ALTERNATE_MODEL}`,
  alternateOnWire: CONFORMANCE_ALTERNATE_MODEL,
};

export const CLAUDE_AGENT_ACP_CONFORMANCE: ConformanceRecipe = {
  options: acpAgent,
  notApplicable: {
    'workspace posture blocks a write outside the cwd and allows one inside':
      'claude-agent-acp 0.101.0 refuses the write to the home folder by its auto-mode classifier before the command runs ("Permission denied: Auto mode could not evaluate this action"), so the confinement is not what is shown',
  },
};

/** codex-acp 0.16.0 takes the home's catalog ids as they are (set_config_option on its `model` option). */
export const CODEX_ACP_CONFORMANCE: ConformanceRecipe = {
  options: acpAgent,
  knownLimitations: { fork: 'codex-acp 0.16.0 advertises no session/fork (sessionCapabilities.fork)' },
};
