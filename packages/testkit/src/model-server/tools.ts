// Which tool a harness offers for "run a shell command" and "write a file", and the exact argument shape
// each one takes. Builder steps `.shell()` / `.writeFile()` are resolved here at response time against the
// tools named in the request, so one script drives every harness.
//
// Evidence (recorded frames, versions there; docs/harnesses/): Claude Code 2.1.197 Bash {command} (claude-agent-acp
// frames show rawInput {command, description, timeout}); Codex 0.169.0 exec_command {cmd} as function_call and
// apply_patch as custom_tool_call (docs/harnesses/codex.md); Gemini CLI 0.61.0 / Qwen Code 0.24.4 run_shell_command
// (ACP `_meta.toolName`, toolCallId prefix) and write_file {file_path, content} (Qwen rawInput.file_path);
// Pi 0.73.1 bash {command} (tool_execution_start); OpenCode 1.18.33 bash {command, description}; Copilot CLI
// 1.0.102 shell rawInput {command, description}, its tool name is not in the frames: `bash` assumed;
// OpenClaw 2026.9.6 `exec` (command_output name). Write tools for Pi/OpenCode/OpenClaw (`write`) and Copilot
// (`create` {path, file_text}) are not in the frames: their argument key is read from the offered schema.
import { asRecord, type JsonRecord } from './json.js';

export interface OfferedTool {
  name: string;
  /** `custom` is a Responses freeform tool (Codex apply_patch); `builtin` a provider tool without a schema. */
  kind: 'function' | 'custom' | 'builtin';
  /** The `properties` of the tool's JSON schema, when it has one. */
  properties: JsonRecord | undefined;
}

/** A concrete tool call. For a custom tool `input` is the raw string input. */
export interface ToolCallSpec {
  name: string;
  input: unknown;
  custom: boolean;
}

export interface ShellToolRecipe {
  tool: string;
  harnesses: string;
  /** undefined when the offered tool of that name has an argument shape this recipe does not fit. */
  build(command: string, offered: OfferedTool): ToolCallSpec | undefined;
}

export interface WriteToolRecipe {
  tool: string;
  harnesses: string;
  build(path: string, content: string, offered: OfferedTool): ToolCallSpec | undefined;
}

function hasProperty(offered: OfferedTool, key: string): boolean {
  return offered.properties !== undefined && key in offered.properties;
}

/**
 * Several shell tools require fields besides the command (OpenCode's bash requires `description`, Qwen's
 * run_shell_command `is_background`); fill the ones we know, and only when the offered schema has them.
 */
function withShellExtras(args: JsonRecord, offered: OfferedTool): JsonRecord {
  const out = { ...args };
  if (hasProperty(offered, 'description')) out.description = 'Run a scripted command';
  if (hasProperty(offered, 'is_background')) out.is_background = false;
  const mode = asRecord(offered.properties?.mode);
  if (mode && Array.isArray(mode.enum) && mode.enum.includes('sync')) out.mode = 'sync';
  return out;
}

/** The path key differs per harness (Pi `path`, OpenCode `filePath`, Claude/Gemini `file_path`). */
function pathKey(offered: OfferedTool, fallback: string): string {
  for (const key of ['file_path', 'filePath', 'path']) if (hasProperty(offered, key)) return key;
  return fallback;
}

function plainShell(tool: string, harnesses: string): ShellToolRecipe {
  return {
    tool,
    harnesses,
    build: (command, offered) => ({ name: tool, input: withShellExtras({ command }, offered), custom: false }),
  };
}

/** Codex's apply_patch grammar for creating one file. */
export function addFilePatch(path: string, content: string): string {
  const body = content.endsWith('\n') ? content.slice(0, -1) : content;
  const lines = body.split('\n').map((line) => `+${line}`);
  return `*** Begin Patch\n*** Add File: ${path}\n${lines.join('\n')}\n*** End Patch\n`;
}

/** Order matters only when a request offers several known tools: the first match wins. */
export const knownShellTools: readonly ShellToolRecipe[] = [
  plainShell('Bash', 'Claude Code, claude-agent-acp'),
  {
    tool: 'exec_command',
    harnesses: 'Codex',
    build: (command) => ({ name: 'exec_command', input: { cmd: command }, custom: false }),
  },
  plainShell('run_shell_command', 'Gemini CLI, Qwen Code'),
  plainShell('bash', 'Pi, OpenCode, Copilot CLI'),
  plainShell('exec', 'OpenClaw'),
  {
    // Older Codex builds offered `shell` with an argv array; only used when the schema says so.
    tool: 'shell',
    harnesses: 'Codex (older)',
    build: (command, offered) =>
      asRecord(offered.properties?.command)?.type === 'array'
        ? { name: 'shell', input: { command: ['bash', '-lc', command] }, custom: false }
        : undefined,
  },
];

export const knownWriteTools: readonly WriteToolRecipe[] = [
  {
    tool: 'Write',
    harnesses: 'Claude Code, claude-agent-acp',
    build: (path, content) => ({ name: 'Write', input: { file_path: path, content }, custom: false }),
  },
  {
    tool: 'apply_patch',
    harnesses: 'Codex',
    build: (path, content, offered) =>
      offered.kind === 'custom'
        ? { name: 'apply_patch', input: addFilePatch(path, content), custom: true }
        : { name: 'apply_patch', input: { input: addFilePatch(path, content) }, custom: false },
  },
  {
    tool: 'write_file',
    harnesses: 'Gemini CLI, Qwen Code',
    build: (path, content, offered) => ({
      name: 'write_file',
      input: { [pathKey(offered, 'file_path')]: path, content },
      custom: false,
    }),
  },
  {
    tool: 'write',
    harnesses: 'Pi, OpenCode, OpenClaw',
    build: (path, content, offered) => ({
      name: 'write',
      input: { [pathKey(offered, 'path')]: path, content },
      custom: false,
    }),
  },
  {
    tool: 'create',
    harnesses: 'Copilot CLI (unverified)',
    build: (path, content) => ({ name: 'create', input: { path, file_text: content }, custom: false }),
  },
];

export interface ToolRecipes {
  shell: readonly ShellToolRecipe[];
  write: readonly WriteToolRecipe[];
}

export const defaultToolRecipes: ToolRecipes = { shell: knownShellTools, write: knownWriteTools };

/** Raised when a reply needs a shell or write tool and the request offers none we know. */
export class ToolResolutionError extends Error {
  constructor(
    readonly step: 'shell' | 'writeFile',
    readonly known: readonly string[],
    readonly offered: readonly string[],
  ) {
    super(
      `scripted ${step}() found no known tool in the request: it offered [${offered.join(', ') || 'no tools'}]; ` +
        `known ${step === 'shell' ? 'shell' : 'write'} tools are [${known.join(', ')}] (extend tools.ts)`,
    );
    this.name = 'ToolResolutionError';
  }
}

function firstFit<R extends { tool: string }>(
  recipes: readonly R[],
  offered: readonly OfferedTool[],
  build: (recipe: R, tool: OfferedTool) => ToolCallSpec | undefined,
): ToolCallSpec | undefined {
  for (const recipe of recipes) {
    const tool = offered.find((candidate) => candidate.name === recipe.tool);
    const call = tool && build(recipe, tool);
    if (call) return call;
  }
  return undefined;
}

export function resolveShell(command: string, offered: readonly OfferedTool[], recipes: ToolRecipes): ToolCallSpec {
  const call = firstFit(recipes.shell, offered, (recipe, tool) => recipe.build(command, tool));
  if (call) return call;
  throw new ToolResolutionError(
    'shell',
    recipes.shell.map((recipe) => recipe.tool),
    offered.map((tool) => tool.name),
  );
}

export function resolveWrite(
  path: string,
  content: string,
  offered: readonly OfferedTool[],
  recipes: ToolRecipes,
): ToolCallSpec {
  const call = firstFit(recipes.write, offered, (recipe, tool) => recipe.build(path, content, tool));
  if (call) return call;
  throw new ToolResolutionError(
    'writeFile',
    recipes.write.map((recipe) => recipe.tool),
    offered.map((tool) => tool.name),
  );
}

/** A raw `.toolCall()`: a Responses custom tool (string input) stays custom, everything else is a function call. */
export function resolveRaw(name: string, input: unknown, offered: readonly OfferedTool[]): ToolCallSpec {
  const tool = offered.find((candidate) => candidate.name === name);
  return { name, input, custom: tool?.kind === 'custom' && typeof input === 'string' };
}

/** Claude Code adds this tool for --json-schema / SDK outputFormat (docs/harnesses/claude-code.md). */
export const structuredOutputTool = 'StructuredOutput';
