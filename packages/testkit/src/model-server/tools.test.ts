// shell() / writeFile() resolve to the tool each harness offers. Request bodies are modeled on the recorded
// frames of each harness (docs/harnesses/; tool names and argument keys; schemas trimmed to the properties).
import { describe, expect, it } from 'vitest';
import { anthropicDialect } from './dialects/anthropic.js';
import { chatDialect } from './dialects/chat.js';
import type { Dialect } from './dialects/dialect.js';
import { geminiDialect } from './dialects/gemini.js';
import { responsesDialect } from './dialects/responses.js';
import { defaultToolRecipes } from './harness-tools.js';
import type { JsonRecord } from './json.js';
import { addFilePatch, resolveShell, resolveWrite, ToolResolutionError } from './tools.js';

const schema = (...keys: string[]) => ({
  type: 'object',
  properties: Object.fromEntries(keys.map((key) => [key, { type: 'string' }])),
});
const chatTools = (tools: Record<string, JsonRecord>) =>
  Object.entries(tools).map(([name, parameters]) => ({ type: 'function', function: { name, parameters } }));

interface HarnessCase {
  harness: string;
  dialect: Dialect;
  body: JsonRecord;
  shell: { name: string; input: unknown; custom?: boolean };
  write: { name: string; input: unknown; custom?: boolean };
}

const cases: HarnessCase[] = [
  {
    harness: 'Claude Code 2.1.197',
    dialect: anthropicDialect,
    body: {
      tools: [
        { name: 'Task', input_schema: schema('prompt') },
        { name: 'Bash', input_schema: schema('command', 'timeout', 'description', 'run_in_background') },
        { name: 'Write', input_schema: schema('file_path', 'content') },
      ],
    },
    shell: { name: 'Bash', input: { command: 'echo hi', description: 'Run a scripted command' } },
    write: { name: 'Write', input: { file_path: 'f.txt', content: 'x\n' } },
  },
  {
    harness: 'Codex 0.169.0',
    dialect: responsesDialect,
    body: {
      tools: [
        { type: 'function', name: 'exec_command', parameters: schema('cmd', 'workdir') },
        { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } },
        { type: 'web_search' },
      ],
    },
    shell: { name: 'exec_command', input: { cmd: 'echo hi' } },
    write: { name: 'apply_patch', input: '*** Begin Patch\n*** Add File: f.txt\n+x\n*** End Patch\n', custom: true },
  },
  {
    harness: 'Gemini CLI 0.61.0',
    dialect: geminiDialect,
    body: {
      tools: [
        {
          functionDeclarations: [
            { name: 'run_shell_command', parametersJsonSchema: schema('command', 'description', 'dir_path') },
            { name: 'write_file', parametersJsonSchema: schema('file_path', 'content') },
          ],
        },
      ],
    },
    shell: { name: 'run_shell_command', input: { command: 'echo hi', description: 'Run a scripted command' } },
    write: { name: 'write_file', input: { file_path: 'f.txt', content: 'x\n' } },
  },
  {
    harness: 'Qwen Code 0.24.4',
    dialect: chatDialect,
    body: {
      tools: chatTools({
        run_shell_command: schema('command', 'is_background', 'description'),
        write_file: schema('file_path', 'content'),
      }),
    },
    shell: {
      name: 'run_shell_command',
      input: { command: 'echo hi', description: 'Run a scripted command', is_background: false },
    },
    write: { name: 'write_file', input: { file_path: 'f.txt', content: 'x\n' } },
  },
  {
    harness: 'Pi 0.73.1',
    dialect: chatDialect,
    body: {
      tools: chatTools({
        read: schema('path'),
        bash: schema('command', 'timeout'),
        edit: schema('path'),
        write: schema('path', 'content'),
      }),
    },
    shell: { name: 'bash', input: { command: 'echo hi' } },
    write: { name: 'write', input: { path: 'f.txt', content: 'x\n' } },
  },
  {
    harness: 'OpenCode 1.18.33',
    dialect: chatDialect,
    body: {
      tools: chatTools({ bash: schema('command', 'timeout', 'description'), write: schema('filePath', 'content') }),
    },
    shell: { name: 'bash', input: { command: 'echo hi', description: 'Run a scripted command' } },
    write: { name: 'write', input: { filePath: 'f.txt', content: 'x\n' } },
  },
  {
    harness: 'Copilot CLI 1.0.102',
    dialect: chatDialect,
    body: {
      tools: chatTools({
        bash: {
          type: 'object',
          properties: {
            command: { type: 'string' },
            description: { type: 'string' },
            mode: { enum: ['sync', 'async'] },
          },
        },
        create: schema('path', 'file_text'),
      }),
    },
    shell: { name: 'bash', input: { command: 'echo hi', description: 'Run a scripted command', mode: 'sync' } },
    write: { name: 'create', input: { path: 'f.txt', file_text: 'x\n' } },
  },
  {
    harness: 'OpenClaw 2026.9.6',
    dialect: chatDialect,
    body: { tools: chatTools({ exec: schema('command', 'workdir'), write: schema('path', 'content') }) },
    shell: { name: 'exec', input: { command: 'echo hi' } },
    write: { name: 'write', input: { path: 'f.txt', content: 'x\n' } },
  },
];

describe('tool resolution per harness', () => {
  it.each(cases)('$harness: shell() and writeFile() pick the offered tools', ({ dialect, body, shell, write }) => {
    const offered = dialect.offeredTools(body);
    expect(resolveShell('echo hi', offered, defaultToolRecipes)).toEqual({ custom: false, ...shell });
    expect(resolveWrite('f.txt', 'x\n', offered, defaultToolRecipes)).toEqual({ custom: false, ...write });
  });

  it('fails with the names of the tools that WERE offered when no known tool is there', () => {
    const offered = chatDialect.offeredTools({ tools: chatTools({ read: schema('path'), grep: schema('pattern') }) });
    const attempt = () => resolveShell('echo hi', offered, defaultToolRecipes);
    expect(attempt).toThrow(ToolResolutionError);
    expect(attempt).toThrow(/offered \[read, grep\]/);
    expect(() => resolveWrite('f', 'x', [], defaultToolRecipes)).toThrow(/offered \[no tools\].*Write, apply_patch/);
  });

  it('uses apply_patch as a JSON function when Codex offers it as a function tool', () => {
    const offered = responsesDialect.offeredTools({
      tools: [{ type: 'function', name: 'apply_patch', parameters: schema('input') }],
    });
    expect(resolveWrite('a.txt', 'one', offered, defaultToolRecipes)).toEqual({
      name: 'apply_patch',
      input: { input: addFilePatch('a.txt', 'one') },
      custom: false,
    });
  });

  it('writes an add-file patch with one + line per content line', () => {
    expect(addFilePatch('dir/a.txt', 'one\ntwo\n')).toBe(
      '*** Begin Patch\n*** Add File: dir/a.txt\n+one\n+two\n*** End Patch\n',
    );
  });
});
