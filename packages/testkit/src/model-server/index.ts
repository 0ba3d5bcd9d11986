// Scripted model server (docs/architecture/contract.md, and README.md beside this file): one loopback HTTP server speaking the Anthropic Messages,
// OpenAI Responses, OpenAI Chat Completions and Gemini APIs, driven by a readable reply builder.
export type { AuxiliaryRecognizer, AuxiliaryRequest } from './auxiliary.js';
export { defaultAuxiliaryRecognizers, defaultReply, valueForSchema } from './auxiliary.js';
export type { FailMode, ReplyEnding, ReplyInput, ReplyStep, ReplyUsage, ScriptedReply } from './builder.js';
export { ReplyBuilder, reply } from './builder.js';
export type { DialectName } from './dialects/dialect.js';
export { defaultToolRecipes, harnessToolRecipes, knownShellTools, knownWriteTools } from './harness-tools.js';
export type { RecordedRequest, RequestOutcome, WhenMatcher, WhenOptions } from './script.js';
export type { ModelServer, ModelServerOptions } from './server.js';
export { startModelServer } from './server.js';
export type { OfferedTool, ShellToolRecipe, ToolCallSpec, ToolRecipes, WriteToolRecipe } from './tools.js';
export {
  addFilePatch,
  resolveShell,
  resolveWrite,
  shellToolRecipe,
  ToolResolutionError,
  writeToolRecipe,
} from './tools.js';
