// Pure: account/read and the answers the official Codex TUI 0.171.0 needs at start beyond threads and turns (recorded
// against the real app-server: docs/harnesses/codex.md, "Other Codex clients"). The TUI
// exits at start when config/read fails, so each is served with what holds in front of any harness:
// the bridge's own settings as the config, and no Codex hooks, skills, plugins or GovCloud.
import type { Posture } from '@reins/core';
import { approvalPolicyOf } from './requests.js';
import type { GetAccountResponse } from './wire.js';

export interface SurfaceContext {
  harness: string;
  cwd: string;
  model?: string | undefined;
  posture: Posture;
}

type Params = Record<string, unknown>;

function cwdsOf(params: Params, fallback: string): string[] {
  const cwds = Array.isArray(params.cwds) ? params.cwds.filter((cwd): cwd is string => typeof cwd === 'string') : [];
  return cwds.length > 0 ? cwds : [fallback];
}

/** Handlers by method; `context` is asked at each call (the defaults may change). */
export function clientSurfaceHandlers(
  context: () => SurfaceContext,
): Record<string, (params: Params) => Promise<unknown>> {
  return {
    // The harness authenticates itself (Reins never handles credentials): no OpenAI account here.
    'account/read': async (): Promise<GetAccountResponse> => ({
      account: null,
      userId: null,
      requiresOpenaiAuth: false,
    }),
    // The settings a thread starts with here; a Codex config.toml means nothing to another harness.
    'config/read': async (params) => {
      const { harness, model, posture } = context();
      return {
        config: {
          model: model ?? null,
          model_provider: harness,
          approval_policy: approvalPolicyOf(posture),
          sandbox_mode: posture === 'workspace' ? 'workspace-write' : 'danger-full-access',
          web_search: 'disabled',
        },
        origins: {},
        layers: params.includeLayers === true ? [] : null,
      };
    },
    'configRequirements/read': async () => ({ requirements: null, supportsIndependentSpeedModes: false }),
    'hooks/list': async (params) => ({
      data: cwdsOf(params, context().cwd).map((cwd) => ({ cwd, hooks: [], warnings: [], errors: [] })),
    }),
    'skills/list': async (params) => ({
      data: cwdsOf(params, context().cwd).map((cwd) => ({ cwd, skills: [], errors: [] })),
    }),
    'plugin/installed': async () => ({ marketplaces: [], marketplaceLoadErrors: [] }),
    // Experimental, asked by the TUI at start: no AWS Bedrock account behind the bridge.
    'account/bedrock/checkGovCloudRequirements': async () => ({ isGovCloud: false, shouldWarn: false }),
  };
}
