// The system-text registry on real recordings of every harness (the fixtures under
// packages/harnesses/src/*/fixtures, each named with the CLI version it was recorded on): the
// machinery each rule was built from is classified by that rule, and no other string anywhere in
// those recordings (prompts, answers, tool output, system prompts) matches any rule. Then text that
// merely looks like machinery stays the user's.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyUserMessage, classifyUserText } from './classify.js';
import { SYSTEM_TEXT_RULES } from './rules.js';

const harnessesSrc = fileURLToPath(new URL('../../../harnesses/src/', import.meta.url));

function fixtureFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...fixtureFiles(path));
    else if (name.endsWith('.jsonl') && path.includes('/fixtures/')) found.push(path);
  }
  return found;
}

function strings(value: unknown, out: string[]): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const entry of value) strings(entry, out);
  else if (value && typeof value === 'object') for (const entry of Object.values(value)) strings(entry, out);
  return out;
}

/** Every string in every frame of every recording, with the file (relative to harnesses/src) it is in. */
function recordedStrings(): Array<{ file: string; text: string }> {
  const all: Array<{ file: string; text: string }> = [];
  for (const path of fixtureFiles(harnessesSrc)) {
    const file = path.slice(harnessesSrc.length);
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let frame: unknown;
      try {
        frame = JSON.parse(line);
      } catch {
        continue;
      }
      for (const text of strings(frame, [])) all.push({ file, text });
    }
  }
  return all;
}

const recorded = recordedStrings();
const harnessesRecorded = new Set(recorded.map(({ file }) => file.split('/')[0]));

describe('system text in real recordings', () => {
  it('reads recordings of every harness that has them', () => {
    for (const harness of ['claude-code', 'codex', 'acp', 'pi', 'openclaw'])
      expect(harnessesRecorded).toContain(harness);
    expect(recorded.length).toBeGreaterThan(10_000);
  });

  it('classifies exactly the recorded machinery, and nothing else in any recording', () => {
    const matched = new Map<string, Set<string>>();
    for (const { file, text } of recorded) {
      const result = classifyUserText(text);
      if (result.origin === 'user') continue;
      const key = `${result.rule} ${file}`;
      matched.set(key, (matched.get(key) ?? new Set()).add(text));
    }
    expect([...matched.keys()].sort()).toEqual(
      [
        'claude-code.command-record acp/fixtures/claude-agent-acp/resume-in-a-new-process-2.0.23.1.jsonl',
        'claude-code.local-command-stdout acp/fixtures/claude-agent-acp/resume-in-a-new-process-2.0.23.1.jsonl',
        'claude-code.interrupt-marker claude-code/fixtures/interrupt-stream.2.1.197.jsonl',
        'claude-code.interrupt-marker claude-code/fixtures/interrupt-tool.2.1.197.jsonl',
        'claude-code.interrupt-marker claude-code/fixtures/stalled-request.2.1.332.jsonl',
        'claude-code.local-command-stdout claude-code/fixtures/compact.2.1.197.jsonl',
        'claude-code.local-command-stdout claude-code/fixtures/model-switch.2.1.197.jsonl',
        'claude-code.local-command-stdout claude-code/fixtures/model-unsupported.2.1.197.jsonl',
      ].sort(),
    );
  });

  it('turns an interrupt marker into a readable sentence and keeps command records as synthetic', () => {
    expect(classifyUserText('[Request interrupted by user]')).toEqual({
      origin: 'notification',
      text: 'You interrupted the turn.',
      rule: 'claude-code.interrupt-marker',
    });
    expect(classifyUserText('[Request interrupted by user for tool use]').text).toBe(
      'You interrupted the turn while a tool ran.',
    );
    const record =
      '<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>default</command-args>';
    expect(classifyUserText(record)).toEqual({ origin: 'synthetic', text: record, rule: 'claude-code.command-record' });
    expect(classifyUserText('<local-command-stdout>Compacted </local-command-stdout>').origin).toBe('synthetic');
  });

  it('reads a background-task notice as a sentence', () => {
    const notice =
      '<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n<summary>Agent "count files" completed</summary>\n</task-notification>';
    expect(classifyUserText(notice)).toMatchObject({
      origin: 'notification',
      text: 'Background task: Agent "count files" completed',
    });
  });
});

describe('text that only looks like machinery stays the user’s', () => {
  const lookalikes = [
    'Why does Claude print <command-name> in my transcript?',
    '[Request interrupted by user] is what I see after pressing Esc — what does it mean?',
    'Please explain: <local-command-stdout>Set model</local-command-stdout> and also fix the bug',
    '<div>render this html</div>',
    '<system-reminder> is a tag name I want you to grep for',
    'Add an <environment_context> section to the docs',
    '# AGENTS.md instructions for contributors\nWrite tests.',
    '[Request interrupted by the build server]',
    '<task-notification>',
    '',
  ];
  for (const text of lookalikes) {
    it(JSON.stringify(text.slice(0, 60)), () => {
      expect(classifyUserText(text)).toEqual({ origin: 'user', text });
    });
  }

  it('keeps an origin the adapter already knows, and leaves user text untouched', () => {
    const base = { kind: 'user_message' as const, id: 'u1', status: 'completed' as const };
    const typed = { ...base, text: 'hello' };
    expect(classifyUserMessage(typed)).toBe(typed);
    const own = { ...base, text: 'Claude Code started a turn by itself.', origin: 'notification' as const };
    expect(classifyUserMessage(own)).toBe(own);
    expect(classifyUserMessage({ ...base, text: '[Request interrupted by user]' })).toMatchObject({
      origin: 'notification',
      text: 'You interrupted the turn.',
    });
  });

  it('names where every rule was seen', () => {
    for (const rule of SYSTEM_TEXT_RULES) expect(rule.seen.length).toBeGreaterThan(0);
    expect(new Set(SYSTEM_TEXT_RULES.map((rule) => rule.id)).size).toBe(SYSTEM_TEXT_RULES.length);
  });
});
