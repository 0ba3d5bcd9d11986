// The live settings of one ACP session: model, effort and mode, read from what the agent reported
// (config options of category model / thought_level / mode, or the older `models` and `modes`
// states) and changed through `session/set_config_option`, else the older `session/set_model` and
// `session/set_mode`. Every change is announced as `session.updated`.
import {
  type Effort,
  type EventPayload,
  type HarnessId,
  isRecord,
  ReinsError,
  type SettingChange,
  unsupportedModelError,
} from '@reins/core';
import { settingsFromConfigOptions } from './translate.js';
import type {
  SessionConfigOption,
  SessionModelState,
  SessionModeState,
  SessionSetupResponse,
  SessionUpdate,
} from './wire.js';

/** Values of a select config option, flattening groups. */
export function optionValues(option: SessionConfigOption): { value: string; name: string }[] {
  if (option.type !== 'select' || !Array.isArray(option.options)) return [];
  const out: { value: string; name: string }[] = [];
  for (const entry of option.options as unknown[]) {
    if (!isRecord(entry)) continue;
    if (Array.isArray(entry.options)) {
      for (const inner of entry.options as unknown[]) {
        if (isRecord(inner) && inner.value !== undefined)
          out.push({ value: String(inner.value), name: String(inner.name ?? inner.value) });
      }
    } else if (entry.value !== undefined) {
      out.push({ value: String(entry.value), name: String(entry.name ?? entry.value) });
    }
  }
  return out;
}

export interface SettingsContext {
  harness: HarnessId;
  label: string;
  /** The agent's answer to a request on this session (ReinsError on failure). */
  request<T>(method: string, params: Record<string, unknown>): Promise<T>;
  /** The native session id (known once the session is open). */
  nativeSessionId(): string | undefined;
  /** What the translation last saw of model / effort / mode (kept in step here). */
  current: { model?: string; effort?: string; mode?: string };
  emit(payload: EventPayload): void;
  /** Models the agent lists that cannot work here (a preset quirk). */
  hideModel?: (modelId: string) => boolean;
}

export class AcpSettings {
  private configOptions: SessionConfigOption[] = [];
  private modes: SessionModeState | undefined;
  private models: SessionModelState | undefined;

  constructor(private readonly context: SettingsContext) {}

  /** Takes what session/new, load or resume answered. */
  take(setup: SessionSetupResponse): void {
    if (Array.isArray(setup.configOptions)) this.configOptions = setup.configOptions;
    if (isRecord(setup.modes) && Array.isArray(setup.modes.availableModes)) this.modes = setup.modes;
    if (isRecord(setup.models) && Array.isArray(setup.models.availableModels)) this.models = setup.models;
  }

  /** Keeps the state in step with an update the agent sent (the translation reports the change). */
  observe(update: SessionUpdate): void {
    if (update.sessionUpdate === 'config_option_update' && Array.isArray(update.configOptions)) {
      this.configOptions = update.configOptions;
    }
    if (update.sessionUpdate === 'current_mode_update' && this.modes && typeof update.currentModeId === 'string') {
      this.modes = { ...this.modes, currentModeId: update.currentModeId };
    }
  }

  /** Model, effort and mode as the agent states them now (also recorded for the translation). */
  current(): { model?: string; effort?: string; mode?: string } {
    const fromOptions = settingsFromConfigOptions(this.configOptions);
    const model = fromOptions.model ?? this.models?.currentModelId;
    const mode = fromOptions.mode ?? this.modes?.currentModeId;
    const out: { model?: string; effort?: string; mode?: string } = {};
    if (model) out.model = model;
    if (fromOptions.effort) out.effort = fromOptions.effort;
    if (mode) out.mode = mode;
    Object.assign(this.context.current, out);
    return out;
  }

  private option(category: string): SessionConfigOption | undefined {
    return this.configOptions.find((option) => option.category === category && option.type === 'select');
  }

  private visibleModels(): { value: string; name: string }[] {
    const option = this.option('model');
    const all = option
      ? optionValues(option)
      : (this.models?.availableModels ?? []).filter(isRecord).map((model) => ({
          value: String(model.modelId),
          name: String(model.name ?? model.modelId),
        }));
    const hide = this.context.hideModel;
    return hide ? all.filter((model) => !hide(model.value)) : all;
  }

  /** Models this session can switch to, as the agent listed them (minus the ones a quirk hides). */
  availableModels(): { id: string; displayName: string; isDefault: boolean }[] {
    const current = this.context.current.model;
    return this.visibleModels().map((model) => ({
      id: model.value,
      displayName: model.name,
      isDefault: model.value === current,
    }));
  }

  async setModel(model: string): Promise<SettingChange> {
    const listed = this.visibleModels();
    if (listed.length > 0 && !listed.some((entry) => entry.value === model)) {
      throw unsupportedModelError(
        model,
        `${this.context.label} offers ${listed.map((entry) => entry.value).join(', ')}`,
        {
          harness: this.context.harness,
          operation: 'setModel',
        },
      );
    }
    await this.applyModel(model);
    return { applied: 'live' };
  }

  /** Puts `model` in place without checking the list (the session's own model after a reopen). */
  async applyModel(model: string): Promise<void> {
    const option = this.option('model');
    const sessionId = this.context.nativeSessionId();
    try {
      if (option) {
        const answer = await this.context.request<{ configOptions?: SessionConfigOption[] } | null>(
          'session/set_config_option',
          { sessionId, configId: option.id, value: model },
        );
        if (Array.isArray(answer?.configOptions)) this.configOptions = answer.configOptions;
        else
          this.configOptions = this.configOptions.map((entry) =>
            entry.id === option.id ? ({ ...entry, currentValue: model } as SessionConfigOption) : entry,
          );
      } else {
        // Not in the 2.4.0 schema, but Gemini 0.61.0, Qwen 0.24.4, Copilot 1.0.102 and claude-agent-acp 0.23.1 take it.
        await this.context.request('session/set_model', { sessionId, modelId: model });
        if (this.models) this.models = { ...this.models, currentModelId: model };
      }
    } catch (error) {
      const reins = ReinsError.from(error, 'protocol_error', { harness: this.context.harness, operation: 'setModel' });
      if (reins.code === 'unsupported_capability') {
        throw new ReinsError(
          'unsupported_capability',
          `${this.context.label} cannot switch models in a live session.`,
          {
            harness: this.context.harness,
            operation: 'setModel',
            cause: reins,
          },
        );
      }
      if (reins.code === 'protocol_error') {
        throw unsupportedModelError(model, reins.message, { harness: this.context.harness, operation: 'setModel' });
      }
      throw reins;
    }
    this.context.current.model = model;
    this.context.emit({ type: 'session.updated', model });
  }

  /** The model the agent reports now (after a reopen it may have reverted). */
  reportedModel(): string | undefined {
    return settingsFromConfigOptions(this.configOptions).model ?? this.models?.currentModelId;
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    const option = this.option('thought_level');
    if (!option) {
      throw new ReinsError(
        'unsupported_capability',
        `${this.context.label} offers no reasoning effort setting for this session.`,
        { harness: this.context.harness, operation: 'setEffort', data: { capability: 'liveEffortSwitch' } },
      );
    }
    const values = optionValues(option);
    const match = values.find((entry) => entry.value === effort || entry.name.toLowerCase() === effort);
    if (!match) {
      throw new ReinsError(
        'invalid_input',
        `${this.context.label} has no effort "${effort}"; it offers ${values.map((v) => v.value).join(', ')}.`,
        { harness: this.context.harness, operation: 'setEffort' },
      );
    }
    await this.setConfig(option, match.value, 'setEffort');
    this.context.current.effort = effort;
    this.context.emit({ type: 'session.updated', effort });
    return { applied: 'live' };
  }

  /** Selects one of the agent's modes (config option of category mode, else session/set_mode). */
  async setMode(modeId: string): Promise<SettingChange> {
    const option = this.option('mode');
    const offered = option
      ? optionValues(option).map((entry) => entry.value)
      : this.modes?.availableModes.map((m) => m.id);
    if (!offered) {
      throw new ReinsError('unsupported_capability', `${this.context.label} offers no modes.`, {
        harness: this.context.harness,
        operation: 'setMode',
      });
    }
    if (!offered.includes(modeId)) {
      throw new ReinsError(
        'invalid_input',
        `${this.context.label} has no mode "${modeId}"; it offers ${offered.join(', ')}.`,
        { harness: this.context.harness, operation: 'setMode' },
      );
    }
    if (option) {
      await this.setConfig(option, modeId, 'setMode');
    } else if (this.modes) {
      await this.context.request('session/set_mode', { sessionId: this.context.nativeSessionId(), modeId });
      this.modes = { ...this.modes, currentModeId: modeId };
    }
    this.context.current.mode = modeId;
    this.context.emit({ type: 'session.updated', mode: modeId });
    return { applied: 'live' };
  }

  private async setConfig(option: SessionConfigOption, value: string, operation: string): Promise<void> {
    const answer = await this.context
      .request<{ configOptions?: SessionConfigOption[] } | null>('session/set_config_option', {
        sessionId: this.context.nativeSessionId(),
        configId: option.id,
        value,
      })
      .catch((error: unknown) => {
        throw ReinsError.from(error, 'protocol_error', { harness: this.context.harness, operation });
      });
    if (Array.isArray(answer?.configOptions)) this.configOptions = answer.configOptions;
  }
}
