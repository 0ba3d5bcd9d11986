// A session's settings as ACP changes them: session/set_config_option and session/set_model (model,
// effort: onto setModel / setEffort) and session/set_mode (a mode is a Reins posture, which a harness
// takes only when it starts, so the harness restarts on the same conversation with the new posture).
import { type Effort, type Posture, ReinsError, type SessionSpec } from '@reins/core';
import { withDeadline } from '../lifecycle.js';
import { HARNESS_DEFAULT, MODE_IDS } from './options.js';
import type { SettingRequest } from './requests.js';
import type { BridgeSession } from './session.js';
import { modeUpdate, takeConfigOptions } from './translate.js';
import type { SessionConfigOption } from './wire.js';

/** What changing settings needs of the bridge. */
export interface SettingsContext {
  harnessId: string;
  requestTimeoutMs: number;
  /** Writes what the records keep of a session. */
  remember: (bridged: BridgeSession) => Promise<void>;
  /** Closes `bridged` and opens its conversation again under the same id with `spec`. */
  reopen: (bridged: BridgeSession, spec: SessionSpec) => Promise<BridgeSession>;
}

export async function applySetting(
  context: SettingsContext,
  bridged: BridgeSession,
  request: SettingRequest,
): Promise<SessionConfigOption[]> {
  const settings = bridged.state.settings;
  if (request.setting === 'model') {
    if (request.model === HARNESS_DEFAULT && !settings.catalog?.some((model) => model.id === HARNESS_DEFAULT)) {
      throw new ReinsError(
        'invalid_input',
        `"${HARNESS_DEFAULT}" stands for the harness's own choice and cannot be set; pick a listed model.`,
      );
    }
    await withDeadline(bridged.session.setModel(request.model), context.requestTimeoutMs, 'setModel');
    settings.model = request.model;
  } else {
    await withDeadline(bridged.session.setEffort(request.effort), context.requestTimeoutMs, 'setEffort');
    settings.effort = request.effort;
  }
  await context.remember(bridged);
  return takeConfigOptions(bridged.state);
}

/** session/set_mode, between turns (see the header). */
export async function setMode(
  context: SettingsContext,
  bridged: BridgeSession,
  modeId: string,
): Promise<Record<string, never>> {
  const settings = bridged.state.settings;
  if (!settings.modes) {
    throw new ReinsError(
      'unsupported_capability',
      `The ${context.harnessId} harness has no modes to switch through Reins.`,
    );
  }
  if (!(MODE_IDS as readonly string[]).includes(modeId)) {
    throw new ReinsError('invalid_input', `Unknown mode "${modeId}"; this agent's modes are ${MODE_IDS.join(', ')}.`);
  }
  if (modeId === settings.posture) return {};
  if (bridged.busy) throw new ReinsError('invalid_input', 'A prompt is running; set the mode once it has ended.');
  const native = bridged.state.nativeSessionId ?? bridged.session.nativeSessionId;
  if (!native)
    throw new ReinsError(
      'resume_failed',
      'The harness has not named its conversation yet, so it cannot restart in another mode.',
    );
  const spec: SessionSpec = {
    ...bridged.spec,
    posture: modeId as Posture,
    resume: { nativeSessionId: native },
    ...(settings.model && settings.model !== HARNESS_DEFAULT ? { model: settings.model } : {}),
    ...(settings.effort ? { effort: settings.effort as Effort } : {}),
  };
  const next = await context.reopen(bridged, spec);
  next.state.settings.catalog ??= settings.catalog;
  for (const update of modeUpdate(next.state)) await next.send(update);
  await context.remember(next);
  return {};
}
