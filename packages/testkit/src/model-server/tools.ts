// How the scripted model server calls a harness's tool for "run a shell command" and "write a file": the
// argument shapes (which tool each harness offers comes from its manifest's testing.tools, gathered in
// harness-tools.ts). Builder steps `.shell()` / `.writeFile()` are resolved here at response time against
// the tools named in the request, so one script drives every harness.
import type { ShellToolArgs, WriteToolArgs } from '@reins/harnesses';
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

/** The recipe for a shell tool named `tool` that takes its command as `args` (a harness's testing.tools). */
export function shellToolRecipe(tool: string, args: ShellToolArgs, harnesses: string): ShellToolRecipe {
  if (args === 'command') return plainShell(tool, harnesses);
  if (args === 'cmd')
    return { tool, harnesses, build: (command) => ({ name: tool, input: { cmd: command }, custom: false }) };
  return {
    // An argv array: only used when the offered schema says so.
    tool,
    harnesses,
    build: (command, offered) =>
      asRecord(offered.properties?.command)?.type === 'array'
        ? { name: tool, input: { command: ['bash', '-lc', command] }, custom: false }
        : undefined,
  };
}

/** The recipe for a write tool named `tool` that takes a file as `args` (a harness's testing.tools). */
export function writeToolRecipe(tool: string, args: WriteToolArgs, harnesses: string): WriteToolRecipe {
  if (args.kind === 'patch')
    return {
      tool,
      harnesses,
      build: (path, content, offered) =>
        offered.kind === 'custom'
          ? { name: tool, input: addFilePatch(path, content), custom: true }
          : { name: tool, input: { input: addFilePatch(path, content) }, custom: false },
    };
  if (args.kind === 'file_text')
    return {
      tool,
      harnesses,
      build: (path, content) => ({ name: tool, input: { path, file_text: content }, custom: false }),
    };
  return {
    tool,
    harnesses,
    build: (path, content, offered) => ({
      name: tool,
      input: { [pathKey(offered, args.pathKey)]: path, content },
      custom: false,
    }),
  };
}

export interface ToolRecipes {
  shell: readonly ShellToolRecipe[];
  write: readonly WriteToolRecipe[];
}

/** Raised when a reply needs a shell or write tool and the request offers none we know. */
export class ToolResolutionError extends Error {
  constructor(
    readonly step: 'shell' | 'writeFile',
    readonly known: readonly string[],
    readonly offered: readonly string[],
  ) {
    super(
      `scripted ${step}() found no known tool in the request: it offered [${offered.join(', ') || 'no tools'}]; ` +
        `known ${step === 'shell' ? 'shell' : 'write'} tools are [${known.join(', ')}] (a harness's manifest names its tools in testing.tools)`,
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
