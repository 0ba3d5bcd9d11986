// The one registry of system-text rules: machinery harnesses leave in user-role text (slash-command
// records, local command output, interrupt markers, injected reminder and context envelopes,
// background-task notices). Each rule names the harnesses and CLI versions it was seen on and where
// it was recorded, so a rule can be retired when no tested version writes it any more. Rules are
// provider-agnostic: they match the text, not the harness, because the same machinery travels
// through bridges (Claude Code's command records arrive over claude-agent-acp too).
//
// A rule matches a WHOLE message (anchored at both ends), never a substring: a user who types a
// sentence that mentions `<command-name>` or quotes an interrupt marker keeps their message.

import type { UserMessageOrigin } from '../items.js';

export interface SystemTextRule {
  /** Stable name, `<harness>.<what>`. */
  id: string;
  origin: Exclude<UserMessageOrigin, 'user'>;
  /** Matches the whole trimmed text. */
  pattern: RegExp;
  /** For `notification`: the readable sentence clients show instead of the raw text. */
  sentence?: (match: RegExpExecArray) => string;
  /** Where it was seen: harness and CLI version, and the recording that holds it. */
  seen: string[];
}

/** Inner text of a tag, trimmed and shortened for a sentence. */
function inner(value: string | undefined, max = 200): string {
  const text = (value ?? '').replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export const SYSTEM_TEXT_RULES: readonly SystemTextRule[] = [
  {
    // `/model default` typed in Claude Code is stored as this record (with its output as the next
    // user message); claude-agent-acp replays it as user_message_chunk on session/load.
    id: 'claude-code.command-record',
    origin: 'synthetic',
    pattern:
      /^<command-name>[^<]*<\/command-name>\s*(?:<command-message>[^<]*<\/command-message>\s*)?(?:<command-args>[^<]*<\/command-args>)?$/,
    seen: [
      'claude-agent-acp over Claude Code: acp/fixtures/claude-agent-acp/resume-in-a-new-process-2.0.23.1.jsonl',
      'shared reference acp-pi-openclaw-examples.md (session/load replay)',
    ],
  },
  {
    // What a local slash command printed (`/model x`, `/compact`), written back as user text.
    id: 'claude-code.local-command-stdout',
    origin: 'synthetic',
    pattern: /^<local-command-(?:stdout|stderr)>[\s\S]*<\/local-command-(?:stdout|stderr)>$/,
    seen: [
      'Claude Code 2.1.197: claude-code/fixtures/model-switch.2.1.197.jsonl, compact.2.1.197.jsonl, model-unsupported.2.1.197.jsonl',
      'claude-agent-acp over Claude Code: acp/fixtures/claude-agent-acp/resume-in-a-new-process-2.0.23.1.jsonl',
    ],
  },
  {
    // The caveat Claude Code puts before local command records in a transcript.
    id: 'claude-code.local-command-caveat',
    origin: 'synthetic',
    pattern: /^<local-command-caveat>[\s\S]*<\/local-command-caveat>$/,
    seen: ['Claude Code 2.1.x transcripts (named in issue 17; not in a committed recording yet)'],
  },
  {
    // Reminders Claude Code injects as user-role text.
    id: 'claude-code.system-reminder',
    origin: 'synthetic',
    pattern: /^<system-reminder>[\s\S]*<\/system-reminder>$/,
    seen: ['Claude Code 2.1.x (named in issue 17; not in a committed recording yet)'],
  },
  {
    // The marker Claude Code writes when a turn is interrupted (also mid-tool).
    id: 'claude-code.interrupt-marker',
    origin: 'notification',
    pattern: /^\[Request interrupted by user( for tool use)?\]$/,
    sentence: (match) => (match[1] ? 'You interrupted the turn while a tool ran.' : 'You interrupted the turn.'),
    seen: [
      'Claude Code 2.1.197: claude-code/fixtures/interrupt-stream.2.1.197.jsonl, interrupt-tool.2.1.197.jsonl',
      'Claude Code 2.1.332: claude-code/fixtures/stalled-request.2.1.332.jsonl',
    ],
  },
  {
    // A background task (subagent, shell) ended: Claude Code tells the model in a user turn.
    id: 'claude-code.task-notification',
    origin: 'notification',
    pattern: /^<task-notification>([\s\S]*)<\/task-notification>$/,
    sentence: (match) => {
      const body = match[1] ?? '';
      const summary = /<summary>([\s\S]*?)<\/summary>/.exec(body)?.[1];
      const status = /<status>([\s\S]*?)<\/status>/.exec(body)?.[1];
      if (summary) return `Background task: ${inner(summary)}`;
      return status ? `A background task ended (${inner(status, 40)}).` : 'A background task ended.';
    },
    seen: [
      'Claude Code 2.1.332 background tasks (the block qwen-code 0.24.4 describes in its prompt, qwen-code fixtures)',
    ],
  },
  {
    // Codex puts the environment (cwd, shell, sandbox) and AGENTS.md into user-role messages.
    id: 'codex.environment-context',
    origin: 'synthetic',
    pattern: /^<environment_context>[\s\S]*<\/environment_context>$/,
    seen: ['Codex 0.16x-0.17x rollouts (contextual user messages; thread/read leaves them out on 0.171.0)'],
  },
  {
    id: 'codex.user-instructions',
    origin: 'synthetic',
    pattern:
      /^(?:<user_instructions>[\s\S]*<\/user_instructions>|# AGENTS\.md instructions for [^\n]+\n[\s\S]*<\/INSTRUCTIONS>)$/,
    seen: ['Codex 0.16x-0.17x rollouts (AGENTS.md envelope)'],
  },
  {
    id: 'codex.turn-aborted',
    origin: 'notification',
    pattern: /^<turn_aborted>[\s\S]*<\/turn_aborted>$/,
    sentence: () => 'You interrupted the turn.',
    seen: ['Codex 0.17x rollouts (the marker an interrupted turn leaves)'],
  },
];
