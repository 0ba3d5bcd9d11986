// Amp's headless wire (`amp -x --stream-json --stream-json-input`): Claude Code compatible stream-json
// on stdout (types shared in protocols/stream-json) and user messages as stream-json lines on stdin.
// Not observed live (Amp needs its service); the shapes follow Amp's documented Claude Code
// compatibility, so the shared Claude types are reused as they are.
export type {
  WireAssistantMessage,
  WireContentBlock,
  WireInit,
  WireResult,
  WireUserMessage,
} from '../protocols/stream-json/wire.js';

/** One user turn written to stdin. */
export interface AmpUserInput {
  type: 'user';
  message: { role: 'user'; content: { type: 'text'; text: string }[] };
}
