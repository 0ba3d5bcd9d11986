// The template harness: one process per session speaking wire.ts on stdin/stdout, on the session chassis
// (the smallest adapter to copy from; docs/architecture/adding-a-harness.md). Every frame's translation
// runs inside chassis.translate, so a translation that throws fails the turn instead of Reins.
import { randomUUID } from 'node:crypto';
import {
  type CapabilityMatrix,
  type Discovery,
  type Effort,
  type Harness,
  type HarnessId,
  type Health,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  type Session,
  type SessionSpec,
  type SettingChange,
  type TurnInput,
} from '@reins/core';
import {
  acceptSessionSpec,
  type ChassisTurn,
  HarnessBinary,
  SessionChassis,
  type SpecSupport,
  type TurnHost,
} from '../../src/runtime/chassis/index.js';
import { HarnessProcess } from '../../src/runtime/child-process.js';
import { capabilitiesOfDiscovered } from '../../src/runtime/evidence.js';
import { parseHarnessLine } from '../../src/runtime/json-depth.js';
import type { HarnessOptions } from '../../src/runtime/options.js';
import { TEMPLATE_INSTALL, templateBinary } from './discovery.js';
import { TEMPLATE_IMPLEMENTED } from './implemented.js';
import { beginTemplateTurn, createTemplateState, translateLine } from './translate.js';
import type { PromptLine } from './wire.js';

/** What the template honours of the session spec: a plain session, every other field refused by name. */
const SPEC_SUPPORT: SpecSupport = {
  model: false,
  effort: false,
  resume: false,
  postures: ['bypass'],
  ephemeral: false,
  allowedTools: false,
  systemPrompt: false,
  mcpServers: false,
};

interface Identity {
  id: HarnessId;
  displayName: string;
}

class TemplateSession implements Session, TurnHost {
  readonly id = randomUUID();
  readonly nativeSessionId = undefined;
  private readonly chassis: SessionChassis;
  private readonly state = createTemplateState();
  private process!: HarnessProcess;

  constructor(
    private readonly identity: Identity,
    private readonly spec: SessionSpec,
  ) {
    this.chassis = new SessionChassis(this, {
      harness: identity.id,
      displayName: identity.displayName,
      sessionId: this.id,
      structuredOutput: 'emulated',
      spec,
    });
  }

  get harness(): HarnessId {
    return this.identity.id;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.chassis.events;
  }

  async start(command: string, env: Record<string, string>): Promise<void> {
    this.process = await HarnessProcess.start({
      command,
      args: [],
      cwd: this.spec.cwd,
      env,
      label: this.identity.displayName,
      harness: this.identity.id,
    });
    this.process.onLine((line) => this.onLine(line));
    void this.process.exited.then(() => {
      const error = new ReinsError('process_exited', this.process.describeExit(), { harness: this.identity.id });
      this.chassis.end(this.chassis.isClosed ? 'requested' : 'process_exited', error.toInfo());
    });
    this.chassis.stream.emit({ type: 'session.started', cwd: this.spec.cwd, binaryPath: command });
    this.chassis.stream.emit({ type: 'session.status', status: 'idle' });
  }

  private onLine(line: string): void {
    const at = Date.now();
    const parsed = parseHarnessLine(line);
    const frame = parsed.parsed ? parsed.value : parsed.shown;
    const native = { source: this.identity.id, frame };
    for (const payload of this.chassis.translate(native, at, () => translateLine(this.state, frame))) {
      const turn = this.chassis.running;
      if (payload.type !== 'turn.completed') this.chassis.stream.emit(payload, { at, native });
      else if (turn) {
        const { type: _type, ...completion } = payload;
        this.chassis.stream.emit({ type: 'session.status', status: 'idle' }, { at, native });
        this.chassis.complete(turn, completion, { at, native });
      }
    }
  }

  beginTurn(turn: ChassisTurn): void {
    beginTemplateTurn(this.state);
    this.chassis.stream.emit({ type: 'session.status', status: 'running' });
    const line: PromptLine = { type: 'prompt', text: turn.prompt.text };
    if (!this.process.writeLine(JSON.stringify(line)))
      throw new ReinsError('process_exited', this.process.describeExit(), { harness: this.identity.id });
  }

  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    return this.chassis.send(input, options);
  }

  interrupt(): Promise<void> {
    return this.chassis.interrupt();
  }

  async setModel(_model: string): Promise<SettingChange> {
    throw this.unsupported('setModel');
  }

  async setEffort(_effort: Effort): Promise<SettingChange> {
    throw this.unsupported('setEffort');
  }

  async respondToPermission(_requestId: string, _decision: PermissionDecision): Promise<void> {
    throw this.unsupported('respondToPermission');
  }

  private unsupported(operation: string): ReinsError {
    const message = `${this.identity.displayName} has no ${operation} in Reins.`;
    return new ReinsError('unsupported_capability', message, { harness: this.identity.id, operation });
  }

  async close(): Promise<void> {
    this.chassis.markClosing('closed by request');
    await this.process.close();
    this.chassis.end('requested');
  }
}

class TemplateHarness implements Harness {
  private readonly binary: HarnessBinary;

  constructor(
    private readonly identity: Identity,
    options: HarnessOptions,
  ) {
    this.binary = new HarnessBinary(templateBinary(identity.id), options, TEMPLATE_INSTALL);
  }

  get id(): HarnessId {
    return this.identity.id;
  }

  get displayName(): string {
    return this.identity.displayName;
  }

  discover(): Promise<Discovery> {
    return this.binary.discover();
  }

  health(): Promise<Health> {
    return this.binary.health();
  }

  async capabilities(): Promise<CapabilityMatrix> {
    return capabilitiesOfDiscovered(this.identity.id, TEMPLATE_IMPLEMENTED, await this.discover());
  }

  async createSession(raw: SessionSpec): Promise<Session> {
    const spec = acceptSessionSpec(raw, SPEC_SUPPORT, this);
    const binary = await this.binary.resolve();
    const session = new TemplateSession(this.identity, spec);
    await session.start(binary.path, this.binary.env(spec.env));
    return session;
  }
}

export function createTemplateHarness(identity: Identity, options: HarnessOptions = {}): Harness {
  return new TemplateHarness(identity, options);
}
