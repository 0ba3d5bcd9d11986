// Which shell and write tools the scripted model server knows: each harness's, from its manifest's
// testing.tools, in manifest order (the first fit wins when a request offers several), built with the
// argument shapes of tools.ts. `startModelServer` is handed these unless a test adds its own.
//
// Evidence (recorded frames, versions there; docs/harnesses/): Claude Code 2.1.197 Bash {command} (claude-agent-acp
// frames show rawInput {command, description, timeout}); Codex 0.169.0 exec_command {cmd} as function_call and
// apply_patch as custom_tool_call (docs/harnesses/codex.md); Gemini CLI 0.61.0 / Qwen Code 0.24.4 run_shell_command
// (ACP `_meta.toolName`, toolCallId prefix) and write_file {file_path, content} (Qwen rawInput.file_path);
// Pi 0.73.1 bash {command} (tool_execution_start); OpenCode 1.18.33 bash {command, description}; Copilot CLI
// 1.0.102 shell rawInput {command, description}, its tool name is not in the frames: `bash` assumed;
// OpenClaw 2026.9.6 `exec` (command_output name). Write tools for Pi/OpenCode/OpenClaw (`write`) and Copilot
// (`create` {path, file_text}) are not in the frames: their argument key is read from the offered schema.
import { HARNESS_MANIFESTS, type HarnessManifest } from '@reins/harnesses';
import {
  type ShellToolRecipe,
  shellToolRecipe,
  type ToolRecipes,
  type WriteToolRecipe,
  writeToolRecipe,
} from './tools.js';

/** One recipe per tool name and argument shape, labelled with every harness that offers it. */
function gather<Args>(
  manifests: readonly HarnessManifest[],
  pick: (manifest: HarnessManifest) => readonly { name: string; args: Args }[] | undefined,
): { name: string; args: Args; harnesses: string[] }[] {
  const tools: { name: string; args: Args; harnesses: string[] }[] = [];
  for (const manifest of manifests) {
    for (const tool of pick(manifest) ?? []) {
      const same = tools.find(
        (known) => known.name === tool.name && JSON.stringify(known.args) === JSON.stringify(tool.args),
      );
      if (same) same.harnesses.push(manifest.displayName);
      else tools.push({ ...tool, harnesses: [manifest.displayName] });
    }
  }
  return tools;
}

/** The recipes for every harness's tools; `manifests` is for a test that adds a harness of its own. */
export function harnessToolRecipes(manifests: readonly HarnessManifest[] = HARNESS_MANIFESTS): ToolRecipes {
  return {
    shell: gather(manifests, (manifest) => manifest.testing?.tools?.shell).map((tool) =>
      shellToolRecipe(tool.name, tool.args, tool.harnesses.join(', ')),
    ),
    write: gather(manifests, (manifest) => manifest.testing?.tools?.write).map((tool) =>
      writeToolRecipe(tool.name, tool.args, tool.harnesses.join(', ')),
    ),
  };
}

export const defaultToolRecipes: ToolRecipes = harnessToolRecipes();
export const knownShellTools: readonly ShellToolRecipe[] = defaultToolRecipes.shell;
export const knownWriteTools: readonly WriteToolRecipe[] = defaultToolRecipes.write;
