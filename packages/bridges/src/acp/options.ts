// Pure: what an ACP client may set on a session. Config options: `model` (category model) whenever the
// harness lists its models, from `session/new` on (the model the harness will run is its default entry
// until it says which it runs), and `effort` (category thought_level) when the adapter implements
// setEffort. Modes: the postures, `ask` and `bypass`, when the harness can ask for approvals and
// resume (a mode change restarts the harness on the same conversation).
import { EFFORT_LEVELS, type ModelInfo, type Posture } from '@reins/core';
import type { SessionConfigOption, SessionModeState } from './wire.js';

/** Config option ids the bridge offers (categories `model` and `thought_level`). */
export const MODEL_OPTION = 'model';
export const EFFORT_OPTION = 'effort';
/** The value that stands for "whatever the harness picks"; never sent to the harness. */
export const HARNESS_DEFAULT = 'default';

export interface BridgeSettings {
  model?: string;
  effort?: string;
  /** The harness's model catalog, when it has one and it answered. */
  catalog?: ModelInfo[];
  /** The adapter implements setEffort: the effort option is offered. */
  effortSwitch: boolean;
  /** The session's posture, and whether the harness can switch it (modes are offered). */
  posture: Posture;
  modes: boolean;
}

function catalogEntry(settings: BridgeSettings, model: string | undefined): ModelInfo | undefined {
  return settings.catalog?.find((entry) => entry.id === model);
}

/**
 * The model the session runs or will run: the one reported or asked for, else the harness's default
 * entry (Claude Code 2.1.197 says which model it runs only at the first turn and lists `default`),
 * else the bridge's own "harness default" value.
 */
export function currentModelOf(settings: BridgeSettings): string {
  return settings.model ?? settings.catalog?.find((entry) => entry.isDefault)?.id ?? HARNESS_DEFAULT;
}

/**
 * The session's config options. The model option exists only when the harness listed its models:
 * ACP clients refuse values an option does not list, so a made-up one-entry list would block every
 * switch (without it, clients fall back to `session/set_model`, which the bridge also takes).
 */
export function configOptionsOf(settings: BridgeSettings): SessionConfigOption[] {
  const options: SessionConfigOption[] = [];
  if (settings.catalog && settings.catalog.length > 0) {
    const current = currentModelOf(settings);
    const values = settings.catalog.map((model) => ({ value: model.id, name: model.displayName ?? model.id }));
    if (!values.some((value) => value.value === current)) {
      values.unshift(
        current === HARNESS_DEFAULT ? { value: current, name: 'Harness default' } : { value: current, name: current },
      );
    }
    options.push({
      id: MODEL_OPTION,
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: current,
      options: values,
    });
  }
  if (settings.effortSwitch) {
    const levels: string[] = catalogEntry(settings, currentModelOf(settings))?.efforts ?? [...EFFORT_LEVELS];
    const values = levels.map((level) => ({ value: level, name: level }));
    const current = settings.effort ?? HARNESS_DEFAULT;
    if (!values.some((value) => value.value === current)) {
      values.unshift(
        current === HARNESS_DEFAULT ? { value: current, name: 'Harness default' } : { value: current, name: current },
      );
    }
    options.push({
      id: EFFORT_OPTION,
      name: 'Reasoning effort',
      category: 'thought_level',
      type: 'select',
      currentValue: current,
      options: values,
    });
  }
  return options;
}

export const MODE_IDS: readonly Posture[] = ['ask', 'bypass'];

/** The session's modes, when the harness can switch them (see the header). */
export function modesOf(settings: BridgeSettings): SessionModeState | undefined {
  if (!settings.modes) return undefined;
  return {
    currentModeId: settings.posture,
    availableModes: [
      { id: 'ask', name: 'Ask', description: 'Every tool asks for permission before it runs.' },
      { id: 'bypass', name: 'Bypass permissions', description: 'Tools run without asking.' },
    ],
  };
}
