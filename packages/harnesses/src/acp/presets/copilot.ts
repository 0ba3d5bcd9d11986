// GitHub Copilot CLI over ACP (`copilot --acp`), tested with @github/copilot 1.0.102.
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { binarySpec } from '../discovery.js';
import type { AcpPreset, ProviderErrorMatch } from '../preset.js';

/**
 * Copilot 1.0.102 reports a failed model call as an agent message and stopReason end_turn: the
 * last message of the turn reads "Error: <status> <body>" (after five "Retrying..." chunks for a
 * 5xx). The rule: the turn's last agent message STARTS with "Error:" and names an HTTP status or
 * a known failure word. Text merely containing "error" does not count.
 */
export function copilotProviderError(text: string): ProviderErrorMatch | undefined {
  const trimmed = text.trim();
  const match = /^(?:Execution failed: )?Error:\s*(.*)$/s.exec(trimmed);
  if (!match) return undefined;
  const body = (match[1] ?? '').trim();
  const status = Number(/\b([45]\d\d)\b/.exec(body)?.[1] ?? Number.NaN);
  const words = /rate.?limit|overloaded|timed? ?out|ECONNREFUSED|fetch failed|server error|bad request|unauthorized/i;
  if (Number.isNaN(status) && !words.test(body)) return undefined;
  const kind =
    status === 429 || /rate.?limit/i.test(body)
      ? 'rate_limited'
      : /overloaded/i.test(body)
        ? 'overloaded'
        : status >= 500 || /server error/i.test(body)
          ? 'server_error'
          : /ECONNREFUSED|fetch failed|timed? ?out/i.test(body)
            ? 'connection_failed'
            : status >= 400
              ? 'bad_request'
              : 'unknown';
  return { kind, ...(Number.isNaN(status) ? {} : { status }), message: body.slice(0, 500) };
}

export const copilotPreset: AcpPreset = {
  id: 'copilot',
  displayName: 'GitHub Copilot CLI',
  binary: binarySpec('copilot', ['copilot']),
  args: () => ['--acp'],
  multiSession: true,
  quirks: { providerErrorInText: copilotProviderError },
  testedVersions: ['1.0.102'],
};

export function createCopilotHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(copilotPreset, options);
}
