// GitHub Copilot CLI over ACP (`copilot --acp`), tested with @github/copilot 1.0.102.
import { providerFailureOf } from '../../../runtime/chassis/provider-failure.js';
import { envOrHome } from '../../../runtime/confinement.js';
import type { AcpPreset } from '../../preset.js';
import type { ProviderErrorMatch, StatusChunk } from '../../translate.js';

/**
 * Copilot 1.0.102 reports model-call trouble as whole agent_message_chunks, then stopReason end_turn:
 * "Info: Request failed due to a transient API error. Retrying..." before each retry of a 5xx, and
 * "Error: <status> <body>" (or "Error: Failed to get response ...; retried 5 times ... Last error:
 * 500 ...", or "Error: Model 'x' not found on provider ... (HTTP 404).") when it gives up. An error
 * chunk must START with "Error:" and name an HTTP status or a known failure word; model text that
 * merely mentions an error does not count.
 */
export function copilotStatusChunk(text: string): StatusChunk | undefined {
  const trimmed = text.trim();
  if (/^Info: .*Retrying\.*$/s.test(trimmed)) return { kind: 'retry', message: trimmed.slice('Info: '.length) };
  const error = copilotProviderError(trimmed);
  return error ? { kind: 'provider_error', error } : undefined;
}

function copilotProviderError(trimmed: string): ProviderErrorMatch | undefined {
  const match = /^(?:Execution failed: )?Error:\s*(.*)$/s.exec(trimmed);
  if (!match) return undefined;
  const body = (match[1] ?? '').trim();
  // The last status in the text is the one that counts ("retried 5 times ... Last error: 500 ...").
  const status = [...body.matchAll(/\b([45]\d\d)\b/g)].map((m) => Number(m[1])).at(-1);
  const words =
    /rate.?limit|overloaded|timed? ?out|ECONNREFUSED|fetch failed|server error|bad request|unauthorized|not found/i;
  if (status === undefined && !words.test(body)) return undefined;
  // What the status and the words mean is the shared rule set's call (runtime/chassis/provider-failure.ts).
  return providerFailureOf(status, body.slice(0, 500));
}

export const copilotPreset: AcpPreset = {
  id: 'copilot',
  displayName: 'GitHub Copilot CLI',
  binary: {
    id: 'copilot',
    names: ['copilot'],
    stateFolders: (env) => [
      ...envOrHome(env, 'COPILOT_HOME', '.copilot'),
      ...envOrHome(env, 'COPILOT_CACHE_HOME', '.cache/copilot'),
    ],
  },
  args: () => ['--acp'],
  multiSession: true,
  quirks: { translate: { statusChunk: copilotStatusChunk } },
  testedVersions: ['1.0.102'],
};
