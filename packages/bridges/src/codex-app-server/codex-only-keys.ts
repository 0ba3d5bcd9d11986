// Pure: the Codex config keys that tune only Codex's own machinery (analytics, its TUI, feature flags,
// update checks). In front of another harness they have nothing to act on, so the bridge takes and
// ignores them, whether a client launches it with `-c` (launch.ts) or sends them in a thread's `config`
// (requests.ts: the Codex TUI's hidden title thread switches `features.*` off).

/** Keys, or key prefixes ending in `.`, with nothing to act on in front of another harness. */
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

/** `features.web_search` (dotted, as `-c` writes it) or `features` (a table, as a thread's config nests it). */
export function isCodexOnlyKey(key: string): boolean {
  return CODEX_ONLY_KEYS.some((known) =>
    known.endsWith('.') ? key.startsWith(known) || key === known.slice(0, -1) : key === known,
  );
}
