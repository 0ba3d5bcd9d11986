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
import {
  type CapabilityMatrix,
  type DiscoveredBinary,
  type Discovery,
  type Effort,
  type EmitMeta,
  type Harness,
  type Health,
  isRecord,
  type PayloadOf,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type RevertOptions,
  type RevertResult,
  type SendOptions,
  type SendResult,
  type Session,
  type SessionDiff,
  type SessionSpec,
  type SettingChange,
  type TurnInput,
} from '@reins/core';
import {
  acceptSessionSpec,
  type ChassisTurn,
  type CommitEmission,
  type FrameSink,
  HarnessBinary,
  SessionChassis,
  type SpecSupport,
  type TurnHost,
} from '../runtime/chassis/index.js';
import { filesOnly, sessionDiff, sessionRevert } from '../runtime/checkpoints/index.js';
import { HarnessProcess } from '../runtime/child-process.js';
import { type Confinement, workspaceConfinement } from '../runtime/confinement.js';
import { capabilitiesOfDiscovered } from '../runtime/evidence.js';
import { parseHarnessLine } from '../runtime/json-depth.js';
import type { HarnessOptions } from '../runtime/options.js';
import { AMP_IMPLEMENTED } from './capabilities.js';
import { AMP_BINARY, AMP_INSTALL } from './discovery.js';
import { type AmpTranslateState, beginAmpTurn, createAmpTranslateState, translateAmpFrameInto } from './translate.js';
import type { AmpUserInput } from './wire.js';

export type AmpHarnessOptions = HarnessOptions;

const SOURCE = 'amp.stream-json';

export const AMP_LAUNCH_ARGS = ['-x', '--stream-json', '--stream-json-input'];

/** What Amp honours of the session spec (see header: only a plain bypass session). */
export const AMP_SPEC_SUPPORT: SpecSupport = {
  model: false,
  effort: false,
  resume: false,
  postures: ['bypass', 'workspace'], // workspace: Reins' confinement (runtime/confinement.ts)
  ephemeral: false,
  allowedTools: false,
  systemPrompt: false,
  mcpServers: false,
};

function unsupported(what: string, operation: string): ReinsError {
  return new ReinsError('unsupported_capability', what, { harness: 'amp', operation });
}

/** The Amp session: the shared chassis plus Amp's stdin/stdout and its terminal rule. */
class AmpSession implements Session, TurnHost {
  readonly id = randomUUID();
  readonly harness = 'amp' as const;
  private native: string | undefined;
  private readonly chassis: SessionChassis;
  private readonly state: AmpTranslateState = createAmpTranslateState();
  private process!: HarnessProcess;
  /** Terminals Amp still owes for turns the chassis ended itself (a stall): they must not end a later turn. */
  private staleTerminals = 0;
  private announced = false;

  constructor(private readonly spec: SessionSpec) {
    this.chassis = new SessionChassis(this, {
      harness: 'amp',
      displayName: 'Amp',
      sessionId: this.id,
      structuredOutput: 'emulated',
      spec,
    });
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.chassis.events;
  }

  private get stream() {
    return this.chassis.stream;
  }

  async start(
    command: string,
    args: string[],
    env: Record<string, string>,
    binary: DiscoveredBinary,
    tap: HarnessOptions['tap'],
    confine: Confinement | undefined,
  ) {
    this.process = await HarnessProcess.start({
      command,
      args,
      cwd: this.spec.cwd,
      env,
      label: 'amp --stream-json',
      harness: 'amp',
      ...(tap ? { tap } : {}),
      ...(confine ? { confine } : {}),
    });
    this.process.onLine((line) => this.onLine(line));
    this.process.onFault((fault) => {
      if (fault.kind === 'oversize_line') this.warnOversize(fault.bytes);
    });
    void this.process.exited.then(() => this.onExit());
    this.stream.emit({
      type: 'session.started',
      cwd: this.spec.cwd,
      binaryPath: binary.path,
      ...(binary.version ? { harnessVersion: binary.version } : {}),
    });
    this.stream.emit({ type: 'session.status', status: 'idle' });
  }

  private warnOversize(bytes: number): void {
    this.stream.emit({
      type: 'notice',
      kind: 'warning',
      message: `Amp wrote a ${bytes}-byte line, over Reins' limit; it was skipped.`,
      data: { bytes },
    });
  }

  private onLine(line: string): void {
    const at = Date.now();
    const parsed = parseHarnessLine(line);
    if (!parsed.parsed) {
      this.stream.emit(
        { type: 'passthrough', frame: parsed.shown, reason: 'unparsable' },
        { at, native: { source: SOURCE, frame: parsed.shown } },
      );
      return;
    }
    const frame = parsed.value;
    const method = isRecord(frame) && typeof frame.type === 'string' ? frame.type : undefined;
    const native = { source: SOURCE, ...(method ? { method } : {}), frame };
    this.chassis.translateInto(frame, { at, native }, this.translateOne, this.emitOne);
  }

  private readonly translateOne = (frame: unknown, sink: FrameSink): void =>
    translateAmpFrameInto(this.state, frame, sink);

  /** One committed event of a frame (chassis.translateInto). */
  private readonly emitOne: CommitEmission = (payload, parentItemId, _background, frameMeta) => {
    const meta: EmitMeta = parentItemId ? { ...frameMeta, parentItemId } : frameMeta;
    if (payload.type === 'turn.completed') {
      this.onTerminal(payload, meta);
      return;
    }
    if (payload.type === 'session.updated' && payload.nativeSessionId) this.native = payload.nativeSessionId;
    if (payload.type === 'session.started') {
      // The shared translation reports init as session facts; Reins announced the start already.
      if (this.announced) return;
      this.announced = true;
    }
    this.stream.emit(payload, meta);
  };

  private onTerminal(payload: PayloadOf<'turn.completed'>, meta: EmitMeta): void {
    const turn = this.chassis.running;
    if (this.staleTerminals > 0 || !turn) {
      if (this.staleTerminals > 0) this.staleTerminals--;
      this.stream.emit({ type: 'passthrough', frame: meta.native?.frame }, meta);
      return;
    }
    const { type: _type, ...completion } = payload;
    this.stream.emit({ type: 'session.status', status: 'idle' }, meta);
    this.chassis.complete(turn, completion, meta);
  }

  private onExit(): void {
    const error = new ReinsError('process_exited', this.process.describeExit(), { harness: 'amp' });
    this.chassis.end(this.chassis.isClosed ? 'requested' : 'process_exited', error.toInfo());
  }

  // ---- TurnHost: how a turn reaches Amp --------------------------------------------------------

  planTurn(input: TurnInput): undefined {
    if (input.images?.length) throw unsupported('Reins does not send images to Amp yet.', 'send');
    return undefined;
  }

  beginTurn(turn: ChassisTurn): void {
    beginAmpTurn(this.state);
    this.stream.emit({ type: 'session.status', status: 'running' });
    const message: AmpUserInput = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: turn.prompt.text }] },
    };
    if (!this.process.writeLine(JSON.stringify(message))) {
      throw new ReinsError('process_exited', this.process.describeExit(), { harness: 'amp', operation: 'send' });
    }
  }

  turnAbandoned(): void {
    this.staleTerminals++;
  }

  // ---- Session ---------------------------------------------------------------------------------

  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    return this.chassis.send(input, options);
  }

  /** Amp's stream-json interrupt form was not observed: the chassis refuses a running turn's interrupt. */
  interrupt(): Promise<void> {
    return this.chassis.interrupt();
  }

  async setModel(_model: string): Promise<SettingChange> {
    this.chassis.assertOpen('setModel');
    throw unsupported('Switching the Amp model is not implemented.', 'setModel');
  }

  async setEffort(_effort: Effort): Promise<SettingChange> {
    this.chassis.assertOpen('setEffort');
    throw unsupported('Amp has no effort setting in Reins.', 'setEffort');
  }

  async respondToPermission(_requestId: string, _decision: PermissionDecision): Promise<void> {
    throw unsupported('Amp approvals are not surfaced by Reins.', 'respondToPermission');
  }

  /** Async: a refusal (checkpoints off) rejects the promise rather than throwing at the call. */
  async diff(turnId?: string): Promise<SessionDiff> {
    return sessionDiff(this.chassis, 'amp', turnId);
  }

  /** The files go back; the conversation stays (Amp's stream-json has no way to drop a turn). */
  async revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    return sessionRevert(this.chassis, 'amp', turnId, options, filesOnly);
  }

  async close(): Promise<void> {
    this.chassis.markClosing('closed by request');
    await this.process.close();
    this.chassis.end('requested');
  }
}

class AmpHarness implements Harness {
  readonly id = 'amp' as const;
  readonly displayName = 'Amp';
  private readonly binary: HarnessBinary;

  constructor(private readonly options: AmpHarnessOptions) {
    this.binary = new HarnessBinary(AMP_BINARY, options, AMP_INSTALL);
  }

  discover(): Promise<Discovery> {
    return this.binary.discover();
  }

  /** Amp logs in against its service; there is no offline status command to ask first. */
  health(): Promise<Health> {
    return this.binary.health();
  }

  async capabilities(): Promise<CapabilityMatrix> {
    return capabilitiesOfDiscovered('amp', AMP_IMPLEMENTED, await this.discover());
  }

  async createSession(raw: SessionSpec): Promise<Session> {
    const spec = acceptSessionSpec(raw, AMP_SPEC_SUPPORT, this);
    const binary = await this.binary.resolve();
    const env = this.binary.env(spec.env);
    const confine =
      spec.posture === 'workspace'
        ? workspaceConfinement({
            harness: 'amp',
            displayName: 'Amp',
            cwd: spec.cwd,
            env,
            stateFolders: AMP_BINARY.stateFolders,
          })
        : undefined;
    const session = new AmpSession(spec);
    await session.start(
      binary.path,
      [...AMP_LAUNCH_ARGS, ...(this.options.extraArgs ?? [])],
      env,
      binary,
      this.options.tap,
      confine,
    );
    return session;
  }
}

export function createAmpHarness(options: AmpHarnessOptions = {}): Harness {
  return new AmpHarness(options);
}

export { AMP_IMPLEMENTED };
