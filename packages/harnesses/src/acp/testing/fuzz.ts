// ACP: session/update through translateUpdate, permission requests through translatePermission, the prompt
// answer through endTurn + outcomeOf + turnTokens, history replay closed by finishReplay, the way
// acp/connection.ts and acp/session.ts do. Each agent's fixtures get its preset's translation quirks.
// Enum fields come from the ACP SDK's own JSON Schema (the unstable v1 schema the adapter is typed by).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type EventPayload, isRecord, type Usage } from '@reins/core';
import { type FuzzTargetBuilder, testingSource } from '../../testing.js';
import type { AcpPreset } from '../preset.js';
import { claudeAgentAcpPreset } from '../presets/claude-agent-acp/preset.js';
import { codexAcpPreset } from '../presets/codex-acp/preset.js';
import { copilotPreset } from '../presets/copilot/preset.js';
import { geminiPreset } from '../presets/gemini/preset.js';
import { opencodePreset } from '../presets/opencode/preset.js';
import { qwenCodePreset } from '../presets/qwen-code/preset.js';
import {
  beginTurn,
  createTranslateState,
  endTurn,
  finishReplay,
  outcomeOf,
  pickPermissionOption,
  providerFailure,
  translatePermission,
  translateUpdate,
  turnTokens,
} from '../translate.js';
import type { PermissionOption, SessionUpdate } from '../wire.js';

const PRESETS: Record<string, AcpPreset> = Object.fromEntries(
  [claudeAgentAcpPreset, codexAcpPreset, copilotPreset, geminiPreset, opencodePreset, qwenCodePreset].map((preset) => [
    preset.id,
    preset,
  ]),
);

function sdkSchema(): unknown {
  // The schema is not among the SDK's exports; it sits beside its dist/ in the installed package.
  const entry = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk');
  let dir = dirname(entry);
  while (!dir.endsWith('sdk')) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, 'schema/v1/schema.unstable.json'), 'utf8'));
}

const NATIVE = (method: string | undefined, frame: unknown) => ({
  source: 'acp',
  ...(method ? { method } : {}),
  frame,
});

export const buildFuzzTarget: FuzzTargetBuilder = (kit) => ({
  name: 'acp',
  corpus: kit.loadCorpus(testingSource(import.meta.url, '../fixtures')),
  mutation: { enumFields: kit.enumFieldsFromJsonSchema(sdkSchema()) },
  replay(frames, stream, fixture) {
    const state = createTranslateState(PRESETS[fixture.header.harness]?.quirks.translate ?? {});
    const emitAll = (payloads: EventPayload[], native?: ReturnType<typeof NATIVE>) => {
      for (const payload of payloads) stream.emit(payload, native ? { native } : {});
    };
    /** Requests Reins sent, by id: which method each answer belongs to. */
    const requests = new Map<unknown, string>();
    let prompt: unknown;
    let permissions = 0;
    for (const { dir, frame } of frames) {
      if (!isRecord(frame)) {
        if (dir === 'out') stream.emit({ type: 'passthrough', frame }, { native: NATIVE(undefined, frame) });
        continue;
      }
      if (dir === 'in') {
        if (typeof frame.method === 'string' && frame.id !== undefined) requests.set(frame.id, frame.method);
        if (frame.method === 'session/prompt' && stream.activeTurnId === null) {
          emitAll(beginTurn(state));
          stream.startTurn({ text: 'fuzzed turn' });
          prompt = frame.id;
        }
        continue;
      }
      if (dir !== 'out') continue;
      const method = typeof frame.method === 'string' ? frame.method : undefined;
      const params = frame.params;
      if (method === 'session/update') {
        // connection.ts routes an update only when params and params.update are objects.
        if (isRecord(params) && typeof params.sessionId === 'string' && isRecord(params.update)) {
          const update = params.update as unknown as SessionUpdate;
          emitAll(translateUpdate(state, update, { inTurn: stream.activeTurnId !== null }), NATIVE(method, frame));
        } else stream.emit({ type: 'passthrough', frame }, { native: NATIVE(method, frame) });
        continue;
      }
      if (method === 'session/request_permission') {
        const record = isRecord(params) ? params : {};
        const options = (Array.isArray(record.options) ? record.options : []) as PermissionOption[];
        const toolCall = isRecord(record.toolCall) ? record.toolCall : {};
        const requestId = `perm_${++permissions}`;
        emitAll(translatePermission(state, requestId, toolCall, options).payloads, NATIVE(method, frame));
        const optionId = pickPermissionOption(options, { behavior: 'allow' });
        stream.emit({
          type: 'permission.resolved',
          requestId,
          decision: optionId ? { behavior: 'allow', optionId } : { behavior: 'allow' },
          by: 'client',
        });
        continue;
      }
      if (method !== undefined) {
        stream.emit({ type: 'passthrough', frame }, { native: NATIVE(method, frame) });
        continue;
      }
      const answered = requests.get(frame.id);
      if (answered === 'session/load' || answered === 'session/resume') emitAll(finishReplay(state));
      if (prompt === undefined || frame.id !== prompt || stream.activeTurnId === null) continue;
      prompt = undefined;
      emitAll(endTurn(state));
      if (frame.error !== undefined) {
        stream.completeTurn({ outcome: { status: 'failed', error: { code: 'protocol_error', message: 'failed' } } });
        continue;
      }
      // session.ts reads the answer as a PromptResponse; a non-object answer is read as having no fields.
      const answer = isRecord(frame.result) ? frame.result : {};
      let outcome = outcomeOf(answer.stopReason as never);
      const tokens = turnTokens(answer.usage as never);
      const usage: Usage | undefined = tokens ? { turn: tokens } : undefined;
      if (usage) stream.emit({ type: 'usage.updated', ...usage }, { native: NATIVE('session/prompt', answer) });
      if (outcome.status === 'completed' && state.providerError) {
        outcome = { status: 'failed', error: providerFailure(state.providerError, { reportedAs: 'message_text' }) };
      }
      stream.completeTurn({
        outcome,
        ...(typeof answer.stopReason === 'string' ? { stopReason: answer.stopReason } : {}),
        ...(usage ? { usage } : {}),
      });
    }
  },
});
