// Classifies one user-role text against the system-text registry (rules.ts): `user` unless a rule
// matches the whole message. Pure and browser-safe; adapters call it on user_message items they
// build from a harness's echo or history, and history replay through the daemon goes the same way.
import type { UserMessageItem, UserMessageOrigin } from '../items.js';
import { SYSTEM_TEXT_RULES, type SystemTextRule } from './rules.js';

export interface Classification {
  origin: UserMessageOrigin;
  /** The text to show: the readable sentence for a notification, else the text as given. */
  text: string;
  /** The rule that matched (absent for `user`). */
  rule?: string;
}

export function classifyUserText(text: string, rules: readonly SystemTextRule[] = SYSTEM_TEXT_RULES): Classification {
  const trimmed = text.trim();
  for (const rule of rules) {
    const match = rule.pattern.exec(trimmed);
    if (!match) continue;
    if (rule.origin === 'notification' && rule.sentence) {
      return { origin: 'notification', text: rule.sentence(match), rule: rule.id };
    }
    return { origin: rule.origin, text, rule: rule.id };
  }
  return { origin: 'user', text };
}

/**
 * A user_message item with its origin set by the registry. An origin the adapter already knows
 * (a turn the harness started itself is `notification`) is kept; a notification's readable
 * sentence replaces the raw text, so clients never show machinery as if the user typed it.
 */
export function classifyUserMessage(item: UserMessageItem): UserMessageItem {
  if (item.origin !== undefined && item.origin !== 'user') return item;
  const classified = classifyUserText(item.text);
  if (classified.origin === 'user') return item;
  return { ...item, origin: classified.origin, text: classified.text };
}
