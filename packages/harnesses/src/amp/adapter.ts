// The Amp adapter: one `amp -x --stream-json --stream-json-input` process per Reins session; user
// turns are stream-json lines on its stdin (kept open between turns), its stdout goes through the
// shared Claude-compatible translation with Amp's terminal rule (translate.ts).
//
// Evidence: NO live Amp session was observed. Amp needs its service (without a key it starts a
// browser login; with a fake key and a local AMP_URL it exits 1 on `getUserInfo` 404), so this
// adapter is built from Amp's documented Claude Code compatible stream format and tested against a
// fake `amp` that replays constructed frames. Everything in AMP_IMPLEMENTED is "implemented", none of
// it "observed". Interrupt, resume and model switching are not offered: their Amp wire forms are
// unknown here.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import {
  type CapabilityMatrix,
  type DiscoveredBinary,
  type Discovery,
  type Effort,
  type Harness,
  type Health,
  type ImplementedCapabilities,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  type Session,
  SessionEventStream,
  type SessionSpec,
  SessionSpecSchema,
  type SettingChange,
  type TurnInput,
  TurnInputSchema,
} from '@reins/core';
import { HarnessProcess } from '../runtime/child-process.js';
import { fingerprintBinary, locateBinary } from '../runtime/discovery.js';
import { capabilitiesFor } from '../runtime/evidence.js';
import { type HarnessOptions, mergeEnv } from '../runtime/options.js';
import { AMP_BINARY } from './discovery.js';
import { type AmpTranslateState, beginAmpTurn, createAmpTranslateState, translateAmpFrame } from './translate.js';
import type { AmpUserInput } from './wire.js';

export type AmpHarnessOptions = HarnessOptions;

const SOURCE = 'amp.stream-json';

/** Implemented mappings; nothing here was observed against a live Amp (see header). */
export const AMP_IMPLEMENTED: ImplementedCapabilities = {
  queue: 'adapter',
  tokenDeltas: false, // whole assistant messages; partial-message streaming not requested
  usage: true, // from `result` when Amp sends one
  cost: true,
  subagents: true, // parent_tool_use_id lanes, as in Claude stream-json
  resume: false,
  interrupt: false,
  steer: false,
  liveModelSwitch: false,
  liveEffortSwitch: false,
  reasoningDeltas: false,
  images: false,
  structuredOutput: false,
  approvals: false,
  contextWindow: false,
  sessionList: false,
  history: false,
  mcpStatus: false,
  compaction: false,
  fork: false,
};

export const AMP_LAUNCH_ARGS = ['-x', '--stream-json', '--stream-json-input'];

function unsupported(what: string, operation: string): ReinsError {
  return new ReinsError('unsupported_capability', what, { harness: 'amp', operation });
}

class AmpSession implements Session {
  readonly id = randomUUID();
  readonly harness = 'amp' as const;
  private native: string | undefined;
  private readonly stream: SessionEventStream;
  private readonly state: AmpTranslateState = createAmpTranslateState();
  private process!: HarnessProcess;
  private activeTurn: string | undefined;
  private readonly queue: { turnId: string; input: TurnInput }[] = [];
  private turnCounter = 0;
  private closing = false;
  private announced = false;

  constructor(private readonly spec: SessionSpec) {
    this.stream = new SessionEventStream({ harness: 'amp', sessionId: this.id });
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.stream.events;
  }

  async start(
    command: string,
    args: string[],
    env: Record<string, string>,
    binary: DiscoveredBinary,
    tap: HarnessOptions['tap'],
  ) {
    this.process = await HarnessProcess.start({
      command,
      args,
      cwd: this.spec.cwd,
      env,
      label: 'amp --stream-json',
      harness: 'amp',
      ...(tap ? { tap } : {}),
    });
    this.process.onLine((line) => this.onLine(line));
    void this.process.exited.then(() => this.onExit());
    this.stream.emit({
      type: 'session.started',
      cwd: this.spec.cwd,
      binaryPath: binary.path,
      ...(binary.version ? { harnessVersion: binary.version } : {}),
    });
    this.stream.emit({ type: 'session.status', status: 'idle' });
  }

  private onLine(line: string): void {
    const at = Date.now();
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch {
      this.stream.emit({ type: 'passthrough', frame: line }, { at, native: { source: SOURCE, frame: line } });
      return;
    }
    const method =
      typeof (frame as { type?: unknown })?.type === 'string' ? (frame as { type: string }).type : undefined;
    const native = { source: SOURCE, ...(method ? { method } : {}), frame };
    for (const emission of translateAmpFrame(this.state, frame)) {
      const payload = emission.payload;
      const meta = { at, native, ...(emission.parentItemId ? { parentItemId: emission.parentItemId } : {}) };
      if (payload.type === 'turn.completed') {
        if (this.activeTurn === undefined) continue;
        this.stream.emit({ type: 'session.status', status: 'idle' }, meta);
        this.stream.emit(payload, meta);
        this.activeTurn = undefined;
        queueMicrotask(() => this.startNextQueued());
        continue;
      }
      if (payload.type === 'session.updated' && payload.nativeSessionId) this.native = payload.nativeSessionId;
      if (payload.type === 'session.started') {
        // The shared translation reports init as session facts; Reins announced the start already.
        if (this.announced) continue;
        this.announced = true;
      }
      this.stream.emit(payload, meta);
    }
  }

  private onExit(): void {
    if (this.closing) return;
    this.closing = true;
    this.queue.length = 0;
    const error = new ReinsError('process_exited', this.process.describeExit(), { harness: 'amp' });
    this.stream.close('process_exited', error.toInfo());
  }

  private startTurn(input: TurnInput, turnId: string): SendResult {
    beginAmpTurn(this.state);
    this.activeTurn = turnId;
    this.stream.startTurn(input, { turnId });
    this.stream.emit({ type: 'session.status', status: 'running' });
    const message: AmpUserInput = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: input.text }] },
    };
    if (!this.process.writeLine(JSON.stringify(message))) {
      const error = new ReinsError('process_exited', this.process.describeExit(), {
        harness: 'amp',
        operation: 'send',
      });
      this.stream.emit({ type: 'turn.completed', outcome: { status: 'failed', error: error.toInfo() } });
      this.activeTurn = undefined;
      throw error;
    }
    return { turnId, delivery: 'started' };
  }

  private startNextQueued(): void {
    if (this.activeTurn !== undefined || this.closing) return;
    const next = this.queue.shift();
    if (!next) return;
    try {
      this.startTurn(next.input, next.turnId);
    } catch {
      // the failed terminal is on the stream
    }
  }

  async send(raw: TurnInput | string, options: SendOptions = {}): Promise<SendResult> {
    const parsed = TurnInputSchema.safeParse(typeof raw === 'string' ? { text: raw } : raw);
    if (!parsed.success || parsed.data.text.trim() === '') {
      throw new ReinsError('invalid_input', 'A turn needs text.', { harness: 'amp', operation: 'send' });
    }
    if (parsed.data.images?.length) throw unsupported('Reins does not send images to Amp yet.', 'send');
    if (options.outputSchema ?? this.spec.outputSchema)
      throw unsupported('Amp has no structured output in Reins.', 'send');
    if (this.closing) throw new ReinsError('process_exited', 'This Amp session is closed.', { harness: 'amp' });
    if (options.mode === 'steer' && options.steerFallback === 'fail' && this.activeTurn !== undefined) {
      throw unsupported('Amp steering is not implemented; the message would be queued.', 'send');
    }
    const turnId = `turn_${++this.turnCounter}`;
    if (this.activeTurn === undefined && this.queue.length === 0) return this.startTurn(parsed.data, turnId);
    this.queue.push({ turnId, input: parsed.data });
    return { turnId, delivery: 'queued' };
  }

  async interrupt(): Promise<void> {
    if (this.activeTurn === undefined) return;
    throw unsupported(
      'Interrupting an Amp turn is not implemented: its stream-json interrupt form was not observed.',
      'interrupt',
    );
  }

  async setModel(_model: string): Promise<SettingChange> {
    throw unsupported('Switching the Amp model is not implemented.', 'setModel');
  }

  async setEffort(_effort: Effort): Promise<SettingChange> {
    throw unsupported('Amp has no effort setting in Reins.', 'setEffort');
  }

  async respondToPermission(_requestId: string, _decision: PermissionDecision): Promise<void> {
    throw unsupported('Amp approvals are not surfaced by Reins.', 'respondToPermission');
  }

  async close(): Promise<void> {
    if (this.closing) {
      await this.process?.close();
      return;
    }
    this.closing = true;
    this.queue.length = 0;
    await this.process.close();
    this.stream.close('requested');
  }
}

class AmpHarness implements Harness {
  readonly id = 'amp' as const;
  readonly displayName = 'Amp';
  private discovered: Promise<DiscoveredBinary> | undefined;

  constructor(private readonly options: AmpHarnessOptions) {}

  private env(additions?: Record<string, string>) {
    return mergeEnv(this.options.baseEnv, additions);
  }

  private binary(): Promise<DiscoveredBinary> {
    this.discovered ??= (
      this.options.binaryPath
        ? fingerprintBinary(this.options.binaryPath, AMP_BINARY, 'explicit', this.env())
        : locateBinary(AMP_BINARY, this.env())
    ).catch((error: unknown) => {
      this.discovered = undefined;
      throw error;
    });
    return this.discovered;
  }

  async discover(): Promise<Discovery> {
    try {
      return { found: true, binary: await this.binary() };
    } catch (error) {
      return {
        found: false,
        searched: this.options.binaryPath ? [this.options.binaryPath] : ['REINS_AMP_BIN', 'PATH'],
        hint: `${ReinsError.from(error, 'binary_not_found').message} Install it with \`npm install -g @ampcode/cli\`.`,
      };
    }
  }

  async health(): Promise<Health> {
    const discovery = await this.discover();
    if (!discovery.found)
      return { status: 'not_installed', message: discovery.hint, fix: 'npm install -g @ampcode/cli' };
    // Amp logs in against its service; there is no offline status command to ask first.
    return { status: 'ready', binary: discovery.binary };
  }

  async capabilities(): Promise<CapabilityMatrix> {
    const discovery = await this.discover();
    return capabilitiesFor({
      harness: 'amp',
      implemented: AMP_IMPLEMENTED,
      ...(discovery.found ? { binary: discovery.binary } : {}),
    });
  }

  async createSession(raw: SessionSpec): Promise<Session> {
    const parsed = SessionSpecSchema.safeParse(raw);
    if (!parsed.success)
      throw new ReinsError('invalid_input', `Invalid session spec: ${parsed.error.message}`, { harness: 'amp' });
    const spec = parsed.data;
    if (!isAbsolute(spec.cwd) || !existsSync(spec.cwd)) {
      throw new ReinsError('invalid_input', `The session cwd ${spec.cwd} must be an existing absolute directory.`, {
        harness: 'amp',
      });
    }
    if (spec.resume) throw unsupported('Resuming an Amp thread is not implemented in Reins yet.', 'createSession');
    if (spec.model) throw unsupported('Choosing an Amp model is not implemented in Reins yet.', 'createSession');
    if (spec.posture === 'ask')
      throw unsupported('Amp approvals are not surfaced by Reins; use posture "bypass".', 'createSession');
    if (spec.outputSchema) throw unsupported('Amp has no structured output in Reins.', 'createSession');
    const binary = await this.binary();
    const session = new AmpSession(spec);
    await session.start(
      binary.path,
      [...AMP_LAUNCH_ARGS, ...(this.options.extraArgs ?? [])],
      this.env(spec.env),
      binary,
      this.options.tap,
    );
    return session;
  }
}

export function createAmpHarness(options: AmpHarnessOptions = {}): Harness {
  return new AmpHarness(options);
}
