// Pure: the command line a Codex client launches `codex app-server` with, as far as it concerns the
// bridge: `-c key=value` overrides (the transport is listen.ts's): the ones that mean something for any harness are
// honoured (model, reasoning effort, approval policy, sandbox mode), the ones that only tune Codex's
// own machinery (analytics, its TUI, feature flags, update checks) have nothing to act on and are
// reported as ignored, and every other key is refused by name rather than dropped.
import { EFFORT_LEVELS, type Effort, type Posture } from '@reins/core';
import { ParamsError, postureOf, sandboxPosture } from './requests.js';

export interface LaunchOptions {
  model?: string;
  effort?: Effort;
  posture?: Posture;
  /** Overrides that tune only Codex itself, taken and ignored (for the log). */
  ignored: string[];
}

/** Codex config keys (or key prefixes, ending in `.`) with nothing to act on in front of another harness. */
const CODEX_ONLY_KEYS = [
  'analytics.',
  'otel.',
  'tui.',
  'features.',
  'feedback.',
  'history.',
  'notify',
  'hide_agent_reasoning',
  'show_raw_agent_reasoning',
  'check_for_update_on_startup',
  'file_opener',
  'windows_wsl_setup_acknowledged',
];

/** A `-c` value as Codex reads it: TOML when it parses as a TOML scalar, else the raw text. */
export function configValueOf(raw: string): string | boolean | number {
  const text = raw.trim();
  const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(text) ?? /^'([^']*)'$/.exec(text);
  if (quoted) return (quoted[1] as string).replace(/\\(.)/g, '$1');
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^[+-]?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

function isCodexOnly(key: string): boolean {
  return CODEX_ONLY_KEYS.some((known) => (known.endsWith('.') ? key.startsWith(known) : key === known));
}

/**
 * The launch options from `-c` overrides and `--enable/--disable` features (Codex:
 * `features.<name>=true|false`). Throws ParamsError naming the flag or key it cannot honour.
 */
export function launchOptionsOf(input: {
  config?: string[];
  features?: string[];
  /** The posture the command line chose otherwise (a sandbox is checked against it). */
  posture?: Posture;
}): LaunchOptions {
  const options: LaunchOptions = { ignored: (input.features ?? []).map((feature) => `features.${feature}`) };
  let sandbox: unknown;
  for (const entry of input.config ?? []) {
    const equals = entry.indexOf('=');
    if (equals <= 0) throw new ParamsError('-c', `takes key=value (got ${JSON.stringify(entry)}).`);
    const key = entry.slice(0, equals).trim();
    const value = configValueOf(entry.slice(equals + 1));
    const field = `-c ${key}`;
    switch (key) {
      case 'model':
        if (typeof value !== 'string' || value === '') throw new ParamsError(field, 'must name a model.');
        options.model = value;
        break;
      case 'model_reasoning_effort':
        if (!(EFFORT_LEVELS as readonly unknown[]).includes(value)) {
          throw new ParamsError(field, `must be one of ${EFFORT_LEVELS.join(', ')}.`);
        }
        options.effort = value as Effort;
        break;
      case 'approval_policy':
        // on-failure: Codex's older name for asking when a command fails; every action asks here.
        options.posture = value === 'on-failure' ? 'ask' : postureOf(value, field);
        break;
      case 'sandbox_mode':
        sandbox = value;
        break;
      default:
        if (!isCodexOnly(key)) {
          throw new ParamsError(
            field,
            'the Reins bridge cannot honour this Codex setting in front of another harness.',
          );
        }
        options.ignored.push(key);
    }
  }
  if (sandbox !== undefined) {
    options.posture = sandboxPosture(sandbox, options.posture ?? input.posture ?? 'bypass', '-c sandbox_mode');
  }
  return options;
}
