// The Pi adapter: one `pi --mode rpc` process per Reins session, its command channel, the session
// state machine (turns, the local queue, steering, interrupt, model/effort switches) and the
// Harness object (discovery, capabilities, models, session list, history).
//
// Decisions (Pi 0.73.1):
// - nativeSessionId is the absolute path of Pi's session file (get_state `sessionFile`). Resume
//   passes it to `--session`. A path, not the session id, because Pi resolves an id it finds under
//   another project by asking "Fork this session into current directory?" on stdin (which would eat
//   the first RPC line) and because Pi silently starts a NEW session when `--session` names a file
//   that does not exist: Reins checks the file first and fails with resume_failed instead.
// - queue: Reins keeps the queue and sends each queued input as its own `prompt` after the current
//   turn has ended. Pi's own `follow_up` is not used for it: Pi runs follow-ups inside the SAME agent
//   run (no agent_end between them) and leaves them queued after an error or abort, to be merged into
//   the next prompt, so it cannot give one Reins turn per input.
// - steer: Pi's native `steer` command (delivered before the next model call of the running turn).
// - turn end: see translate.ts (agent_end + a get_state barrier, retries reopen the turn).
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import {
  type CapabilityMatrix,
  type DiscoveredBinary,
  type Discovery,
  type Effort,
  type EventPayload,
  type Harness,
  type Health,
  type ImplementedCapabilities,
  type Item,
  type ModelInfo,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  type Session,
  SessionEventStream,
  type SessionSpec,
  SessionSpecSchema,
  type SessionSummary,
  type SettingChange,
  type TurnInput,
  TurnInputSchema,
  unsupportedModelError,
} from '@reins/core';
import { HarnessProcess } from '../runtime/child-process.js';
import { fingerprintBinary, locateBinary } from '../runtime/discovery.js';
import { failedProbeHealth } from '../runtime/discovery-health.js';
import { capabilitiesFor } from '../runtime/evidence.js';
import { type HarnessOptions, mergeEnv } from '../runtime/options.js';
import { PiCommandChannel } from './commands.js';
import { PI_BINARY } from './discovery.js';
import {
  beginPiTurn,
  createPiTranslateState,
  failTurn,
  isTurnEndPending,
  PI_DIALOG_METHODS,
  type PiTranslateState,
  piMessagesToItems,
  settleTurn,
  translatePiFrame,
} from './translate.js';
import {
  PiFrameSchema,
  type PiImageContent,
  type PiMessage,
  type PiModel,
  PiResponseSchema,
  type PiSessionState,
  type PiThinkingLevel,
} from './wire.js';

export interface PiHarnessOptions extends HarnessOptions {
  /** Passed as `--session-dir`; default Pi's own (~/.pi/agent/sessions/--<cwd>--). */
  sessionDir?: string;
}

const SOURCE = 'pi.rpc';
const DEFAULT_TIMEOUT_MS = 30_000;

/** What this adapter maps (docs/architecture/contract.md capabilities); observed comes from evidence only. */
export const PI_IMPLEMENTED: ImplementedCapabilities = {
  resume: 'restart', // a new process with --session <file>
  interrupt: true,
  steer: 'native',
  queue: 'adapter', // Reins queues and prompts after the turn (see header)
  liveModelSwitch: true,
  liveEffortSwitch: true,
  tokenDeltas: true,
  reasoningDeltas: true,
  images: 'native', // inline base64; path images are read by Reins
  usage: true,
  cost: 'provider', // Pi reports cost priced from its model table (models.json `cost`)
  contextWindow: true,
  sessionList: true,
  history: true,
  compaction: true,
  structuredOutput: false,
  approvals: false, // Pi has no permission system: tools always run
  fork: false,
  mcpStatus: false,
  subagents: false,
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reins model strings for Pi are `provider/id`; a bare id keeps the current provider. */
export function splitPiModel(
  model: string,
  currentProvider: string | undefined,
): { provider: string; modelId: string } {
  const slash = model.indexOf('/');
  if (slash > 0) return { provider: model.slice(0, slash), modelId: model.slice(slash + 1) };
  if (!currentProvider) {
    throw new ReinsError('invalid_input', `Pi needs a provider for model "${model}"; write it as provider/model.`, {
      harness: 'pi',
      operation: 'setModel',
    });
  }
  return { provider: currentProvider, modelId: model };
}

function modelName(model: PiModel | null | undefined): string | undefined {
  return model ? `${model.provider}/${model.id}` : undefined;
}

const EFFORT_TO_PI: Record<Effort, PiThinkingLevel | undefined> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: undefined,
};

function piThinkingLevel(effort: Effort): PiThinkingLevel {
  const level = EFFORT_TO_PI[effort];
  if (!level) {
    throw new ReinsError(
      'invalid_input',
      `Pi has no "${effort}" thinking level; use one of minimal, low, medium, high, xhigh.`,
      { harness: 'pi', operation: 'setEffort' },
    );
  }
  return level;
}

function unsupported(what: string, operation: string): ReinsError {
  return new ReinsError('unsupported_capability', what, { harness: 'pi', operation });
}

/** Launch arguments for one session (without the binary's own). */
export function piLaunchArgs(spec: SessionSpec, options: PiHarnessOptions): string[] {
  const args = ['--mode', 'rpc'];
  if (options.sessionDir) args.push('--session-dir', options.sessionDir);
  if (spec.resume) args.push('--session', spec.resume.nativeSessionId);
  else if (spec.ephemeral) args.push('--no-session');
  if (spec.model) args.push('--model', spec.model);
  if (spec.effort) args.push('--thinking', piThinkingLevel(spec.effort));
  if (spec.systemPrompt?.append) args.push('--append-system-prompt', spec.systemPrompt.append);
  if (spec.allowedTools) args.push('--tools', spec.allowedTools.join(','));
  args.push(...(options.extraArgs ?? []));
  return args;
}

async function imageContent(input: TurnInput): Promise<PiImageContent[] | undefined> {
  if (!input.images || input.images.length === 0) return undefined;
  return Promise.all(
    input.images.map(async (image): Promise<PiImageContent> => {
      if (image.source === 'data' && image.data) {
        return { type: 'image', data: image.data, mimeType: image.mediaType ?? 'image/png' };
      }
      if (image.source === 'path' && image.path) {
        const data = await readFile(image.path).catch((cause: unknown) => {
          throw new ReinsError('invalid_input', `Could not read the image ${image.path}.`, { harness: 'pi', cause });
        });
        return { type: 'image', data: data.toString('base64'), mimeType: image.mediaType ?? mediaTypeOf(image.path) };
      }
      throw new ReinsError('invalid_input', 'An image needs inline data or a path.', { harness: 'pi' });
    }),
  );
}

function mediaTypeOf(path: string): string {
  const lower = path.toLowerCase();
  if (lower.endsWith('.jpg') || lower.endsWith('.jpeg')) return 'image/jpeg';
  if (lower.endsWith('.gif')) return 'image/gif';
  if (lower.endsWith('.webp')) return 'image/webp';
  return 'image/png';
}

/** Pi's prompt is plain text: file references become a trailing list the model can read. */
function messageText(input: TurnInput): string {
  if (!input.files || input.files.length === 0) return input.text;
  const refs = input.files.map((file) =>
    file.lines ? `${file.path}:${file.lines.start}${file.lines.end ? `-${file.lines.end}` : ''}` : file.path,
  );
  return `${input.text}\n\nReferenced files:\n${refs.map((ref) => `- ${ref}`).join('\n')}`;
}

interface Launch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  binary: DiscoveredBinary | undefined;
}

class PiSession implements Session {
  readonly id = randomUUID();
  readonly harness = 'pi' as const;
  private readonly stream: SessionEventStream;
  private readonly state: PiTranslateState = createPiTranslateState();
  private process!: HarnessProcess;
  private channel!: PiCommandChannel;
  private native: string | undefined;
  private provider: string | undefined;
  private activeTurn: string | undefined;
  private readonly queue: { turnId: string; input: TurnInput }[] = [];
  private turnCounter = 0;
  private barrierInFlight = false;
  private closing = false;

  constructor(
    private readonly spec: SessionSpec,
    private readonly options: PiHarnessOptions,
  ) {
    this.stream = new SessionEventStream({ harness: 'pi', sessionId: this.id });
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.stream.events;
  }

  async start(launch: Launch): Promise<void> {
    const timeoutMs = this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.process = await HarnessProcess.start({
      command: launch.command,
      args: launch.args,
      cwd: launch.cwd,
      env: launch.env,
      label: 'pi --mode rpc',
      harness: 'pi',
      ...(this.options.tap ? { tap: this.options.tap } : {}),
    });
    this.channel = new PiCommandChannel({
      send: (line) => this.process.writeLine(line),
      defaultTimeoutMs: timeoutMs,
    });
    this.process.onLine((line) => this.onLine(line));
    void this.process.exited.then(() => this.onExit());
    let state: PiSessionState;
    try {
      state = (await this.channel.request({ type: 'get_state' })).data as PiSessionState;
    } catch (error) {
      await this.process.close({ stdinGraceMs: 200, termGraceMs: 1000 });
      const cause = ReinsError.from(error, 'protocol_error', { harness: 'pi', operation: 'start' });
      // 0.73.1 refuses an unknown --model at launch: stderr 'Error: Model "x" not found.' and exit 1.
      const missingModel = /Model "([^"]+)" not found/.exec(this.process.stderr.text());
      if (missingModel) {
        throw unsupportedModelError(
          missingModel[1] as string,
          'Pi does not know this model (pi --list-models lists them)',
          {
            harness: 'pi',
            operation: 'start',
            cause,
          },
        );
      }
      if (this.spec.resume) {
        throw new ReinsError(
          'resume_failed',
          `Pi could not resume ${this.spec.resume.nativeSessionId}: ${cause.message}`,
          {
            harness: 'pi',
            operation: 'resume',
            cause,
          },
        );
      }
      throw cause;
    }
    if (
      this.spec.resume &&
      state.sessionFile &&
      resolve(state.sessionFile) !== resolve(this.spec.resume.nativeSessionId)
    ) {
      await this.process.close({ stdinGraceMs: 200, termGraceMs: 1000 });
      throw new ReinsError(
        'resume_failed',
        `Pi opened ${state.sessionFile} instead of ${this.spec.resume.nativeSessionId}; refusing a silent fresh start.`,
        { harness: 'pi', operation: 'resume' },
      );
    }
    this.native = state.sessionFile;
    this.provider = state.model?.provider;
    this.state.contextWindow = state.model?.contextWindow;
    const model = modelName(state.model);
    this.stream.emit({
      type: 'session.started',
      cwd: this.spec.cwd,
      binaryPath: launch.binary?.path ?? launch.command,
      ...(launch.binary?.version ? { harnessVersion: launch.binary.version } : {}),
      ...(model ? { model } : {}),
    });
    this.stream.emit({
      type: 'session.updated',
      ...(state.sessionFile ? { nativeSessionId: state.sessionFile } : {}),
      ...(model ? { model } : {}),
      ...(state.thinkingLevel ? { effort: state.thinkingLevel } : {}),
      ...(state.sessionName ? { title: state.sessionName } : {}),
    });
    this.stream.emit({ type: 'session.status', status: 'idle' });
  }

  // ---- stdout ----
  private onLine(line: string): void {
    const at = Date.now();
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // Pi 0.73.1 keeps stdout for JSONL (takeOverStdout), but a stray print must not be lost.
      this.stream.emit({ type: 'passthrough', frame: line }, { at, native: { source: SOURCE, frame: line } });
      return;
    }
    const frame = PiFrameSchema.safeParse(parsed);
    if (!frame.success) {
      this.stream.emit({ type: 'passthrough', frame: parsed }, { at, native: { source: SOURCE, frame: parsed } });
      return;
    }
    const native = { source: SOURCE, method: frame.data.type, frame: parsed };
    if (frame.data.type === 'response') {
      const response = PiResponseSchema.safeParse(parsed);
      if (response.success && this.channel.receive(response.data as never)) return;
      this.stream.emit({ type: 'passthrough', frame: parsed }, { at, native });
      return;
    }
    if (frame.data.type === 'extension_ui_request' && PI_DIALOG_METHODS.has(String(frame.data.method))) {
      // A dialog blocks Pi until answered, and Reins has no channel for extension UI.
      this.process.writeLine(JSON.stringify({ type: 'extension_ui_response', id: frame.data.id, cancelled: true }));
    }
    this.emitAll(translatePiFrame(this.state, frame.data), { at, native });
    this.maybeBarrier();
  }

  private emitAll(payloads: EventPayload[], meta: { at?: number; native?: ReinsEvent['native'] } = {}): void {
    for (const payload of payloads) {
      if (payload.type === 'turn.completed') {
        if (this.activeTurn === undefined) continue; // an agent run Reins did not start (e.g. after a settled turn)
        this.stream.emit(payload, meta);
        this.activeTurn = undefined;
        queueMicrotask(() => this.startNextQueued());
        continue;
      }
      this.stream.emit(payload, meta);
    }
  }

  /** agent_end makes the end pending; a get_state round trip proves no retry decision is still unread. */
  private maybeBarrier(): void {
    if (!isTurnEndPending(this.state) || this.barrierInFlight || this.closing) return;
    this.barrierInFlight = true;
    this.channel
      .request({ type: 'get_state' })
      .then((response) => {
        const state = response.data as PiSessionState | undefined;
        if (state?.sessionFile && state.sessionFile !== this.native) {
          this.native = state.sessionFile;
          this.stream.emit({ type: 'session.updated', nativeSessionId: state.sessionFile });
        }
        this.barrierInFlight = false;
        this.emitAll(settleTurn(this.state));
      })
      .catch((error: unknown) => {
        this.barrierInFlight = false;
        if (this.closing || this.process.hasExited) return; // the exit path ends the turn
        this.emitAll(failTurn(this.state, ReinsError.from(error, 'protocol_error', { harness: 'pi' }).toInfo()));
      });
  }

  private onExit(): void {
    const error = new ReinsError('process_exited', this.process.describeExit(), {
      harness: 'pi',
      data: { exit: this.process.exitStatus },
    });
    this.channel.close(error);
    if (this.closing) return;
    this.closing = true;
    this.queue.length = 0;
    this.stream.close('process_exited', error.toInfo());
  }

  // ---- turns ----
  private async startTurn(input: TurnInput, turnId: string): Promise<SendResult> {
    beginPiTurn(this.state);
    this.activeTurn = turnId;
    this.stream.startTurn(input, { turnId });
    try {
      const images = await imageContent(input);
      await this.channel.request(
        { type: 'prompt', message: messageText(input), ...(images ? { images } : {}) },
        { failureCode: 'harness_unhealthy' },
      );
    } catch (error) {
      const reinsError = classifyPromptError(error);
      if (this.activeTurn === turnId && !this.process.hasExited)
        this.emitAll(failTurn(this.state, reinsError.toInfo()));
      throw reinsError;
    }
    return { turnId, delivery: 'started' };
  }

  private startNextQueued(): void {
    if (this.activeTurn !== undefined || this.closing) return;
    const next = this.queue.shift();
    if (!next) return;
    // Failures end that turn with a failed outcome on the stream; nobody awaits this call.
    this.startTurn(next.input, next.turnId).catch(() => {});
  }

  async send(raw: TurnInput | string, options: SendOptions = {}): Promise<SendResult> {
    const parsed = TurnInputSchema.safeParse(typeof raw === 'string' ? { text: raw } : raw);
    if (!parsed.success || (parsed.data.text.trim() === '' && !parsed.data.images?.length)) {
      throw new ReinsError('invalid_input', 'A turn needs text or an image.', { harness: 'pi', operation: 'send' });
    }
    const input = parsed.data;
    if (options.outputSchema ?? this.spec.outputSchema) {
      throw unsupported('Pi has no structured output; Reins does not emulate it for Pi yet.', 'send');
    }
    if (this.closing) {
      throw new ReinsError('process_exited', 'This Pi session is closed.', { harness: 'pi', operation: 'send' });
    }
    if (this.activeTurn === undefined && this.queue.length === 0) {
      return this.startTurn(input, this.nextTurnId());
    }
    if (options.mode === 'steer' && this.activeTurn !== undefined) {
      const images = await imageContent(input);
      await this.channel.request({ type: 'steer', message: messageText(input), ...(images ? { images } : {}) });
      return { turnId: this.activeTurn, delivery: 'steered' };
    }
    const turnId = this.nextTurnId();
    this.queue.push({ turnId, input });
    return { turnId, delivery: 'queued' };
  }

  private nextTurnId(): string {
    this.turnCounter++;
    return `turn_${this.turnCounter}`;
  }

  async interrupt(): Promise<void> {
    if (this.activeTurn === undefined || this.closing) return;
    this.state.interruptRequested = true;
    // Pi answers abort after its agent has gone idle; the terminal comes from agent_end (aborted)
    // or auto_retry_end (a retry wait that was cancelled).
    await this.channel.request({ type: 'abort' });
  }

  async setModel(model: string): Promise<SettingChange> {
    const { provider, modelId } = splitPiModel(model, this.provider);
    let response: Awaited<ReturnType<PiCommandChannel['request']>>;
    try {
      response = await this.channel.request({ type: 'set_model', provider, modelId });
    } catch (error) {
      const reinsError = ReinsError.from(error, 'protocol_error', { harness: 'pi' });
      // Pi 0.73.1: `Model not found: fake/nope`.
      if (/not found/i.test(String(reinsError.data?.piError ?? ''))) {
        throw unsupportedModelError(model, String(reinsError.data?.piError), { harness: 'pi', operation: 'setModel' });
      }
      throw reinsError;
    }
    const selected = response.data as PiModel | undefined;
    this.provider = selected?.provider ?? provider;
    if (selected?.contextWindow !== undefined) this.state.contextWindow = selected.contextWindow;
    this.stream.emit({ type: 'session.updated', model: modelName(selected) ?? `${provider}/${modelId}` });
    return { applied: 'live' };
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    const level = piThinkingLevel(effort);
    await this.channel.request({ type: 'set_thinking_level', level });
    this.stream.emit({ type: 'session.updated', effort: level });
    return { applied: 'live' };
  }

  async respondToPermission(_requestId: string, _decision: PermissionDecision): Promise<void> {
    throw unsupported('Pi has no permission requests: its tools run without asking.', 'respondToPermission');
  }

  async close(): Promise<void> {
    if (this.closing) {
      await this.process?.close();
      return;
    }
    this.closing = true;
    this.queue.length = 0;
    this.channel.close(new ReinsError('process_exited', 'The Pi session was closed.', { harness: 'pi' }));
    await this.process.close();
    this.stream.close('requested');
  }
}

function classifyPromptError(error: unknown): ReinsError {
  const reinsError = ReinsError.from(error, 'protocol_error', { harness: 'pi', operation: 'prompt' });
  const piError = String(reinsError.data?.piError ?? '');
  // Pi 0.73.1: "No API key found for <provider>..." / "Authentication failed for ...".
  if (/api key|authentication|login/i.test(piError)) {
    return new ReinsError('auth_required', reinsError.message, { harness: 'pi', operation: 'prompt', cause: error });
  }
  return reinsError;
}

// ---- the Harness object ----
class PiHarness implements Harness {
  readonly id = 'pi' as const;
  readonly displayName = 'Pi';
  private discovered: Promise<DiscoveredBinary> | undefined;

  constructor(private readonly options: PiHarnessOptions) {}

  private env(additions?: Record<string, string>): Record<string, string> {
    return mergeEnv(this.options.baseEnv, additions);
  }

  private binary(): Promise<DiscoveredBinary> {
    this.discovered ??= (
      this.options.binaryPath
        ? fingerprintBinary(this.options.binaryPath, PI_BINARY, 'explicit', this.env())
        : locateBinary(PI_BINARY, this.env())
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
      const reinsError = ReinsError.from(error, 'binary_not_found', { harness: 'pi' });
      return {
        found: false,
        searched: this.options.binaryPath ? [this.options.binaryPath] : ['REINS_PI_BIN', 'PATH'],
        hint: `${reinsError.message} Install it with \`npm install -g @mariozechner/pi-coding-agent\`.`,
      };
    }
  }

  async health(): Promise<Health> {
    const discovery = await this.discover();
    if (!discovery.found)
      return { status: 'not_installed', message: discovery.hint, fix: 'npm install -g @mariozechner/pi-coding-agent' };
    // Pi authenticates per provider at the first prompt; there is no status command to ask first.
    return failedProbeHealth(discovery.binary) ?? { status: 'ready', binary: discovery.binary };
  }

  async capabilities(): Promise<CapabilityMatrix> {
    const discovery = await this.discover();
    return capabilitiesFor({
      harness: 'pi',
      implemented: PI_IMPLEMENTED,
      ...(discovery.found ? { binary: discovery.binary } : {}),
    });
  }

  private async launch(spec: SessionSpec): Promise<Launch> {
    const binary = await this.binary();
    return {
      command: binary.path,
      args: piLaunchArgs(spec, this.options),
      cwd: spec.cwd,
      env: this.env(spec.env),
      binary,
    };
  }

  async createSession(raw: SessionSpec): Promise<Session> {
    const parsed = SessionSpecSchema.safeParse(raw);
    if (!parsed.success) {
      throw new ReinsError('invalid_input', `Invalid session spec: ${parsed.error.message}`, { harness: 'pi' });
    }
    const spec = parsed.data;
    if (!isAbsolute(spec.cwd) || !existsSync(spec.cwd)) {
      throw new ReinsError('invalid_input', `The session cwd ${spec.cwd} must be an existing absolute directory.`, {
        harness: 'pi',
      });
    }
    if (spec.posture === 'ask') {
      throw unsupported(
        'Pi has no permission system, so posture "ask" cannot be honoured; use "bypass".',
        'createSession',
      );
    }
    if (spec.mcpServers && spec.mcpServers.length > 0) {
      throw unsupported('Pi does not support MCP servers.', 'createSession');
    }
    if (spec.outputSchema)
      throw unsupported('Pi has no structured output; Reins does not emulate it for Pi yet.', 'createSession');
    if (spec.resume) {
      const target = spec.resume.nativeSessionId;
      if (!isAbsolute(target) || !existsSync(target)) {
        throw new ReinsError(
          'resume_failed',
          `No Pi session file at ${target}. Pi resumes by the session file path that Reins reported as nativeSessionId.`,
          { harness: 'pi', operation: 'resume' },
        );
      }
    }
    const session = new PiSession(spec, this.options);
    await session.start(await this.launch(spec));
    return session;
  }

  /** Runs a short-lived `pi --mode rpc` for one query and ends it. */
  private async query<T>(spec: SessionSpec, fn: (channel: PiCommandChannel) => Promise<T>): Promise<T> {
    const launch = await this.launch(spec);
    const child = await HarnessProcess.start({ ...launch, label: 'pi --mode rpc', harness: 'pi' });
    const channel = new PiCommandChannel({
      send: (line) => child.writeLine(line),
      defaultTimeoutMs: this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    child.onLine((line) => {
      const parsed = PiResponseSchema.safeParse(safeJson(line));
      if (parsed.success) channel.receive(parsed.data as never);
    });
    void child.exited.then(() =>
      channel.close(new ReinsError('process_exited', child.describeExit(), { harness: 'pi' })),
    );
    try {
      return await fn(channel);
    } finally {
      await child.close({ stdinGraceMs: 500, termGraceMs: 1000 });
    }
  }

  async models(): Promise<ModelInfo[]> {
    return this.query({ cwd: process.cwd(), ephemeral: true }, async (channel) => {
      const [models, state] = await Promise.all([
        channel.request({ type: 'get_available_models' }),
        channel.request({ type: 'get_state' }),
      ]);
      const current = modelName((state.data as PiSessionState | undefined)?.model);
      const list = (isRecord(models.data) && Array.isArray(models.data.models) ? models.data.models : []) as PiModel[];
      return list.map((model) => {
        const id = `${model.provider}/${model.id}`;
        return {
          id,
          ...(model.name ? { displayName: model.name } : {}),
          ...(id === current ? { isDefault: true } : {}),
        };
      });
    });
  }

  /** Reads the headers of Pi's session files for the cwd (Pi 0.73.1 layout: see sessionDirectory). */
  async listSessions(options: { cwd?: string }): Promise<SessionSummary[]> {
    const cwd = options.cwd ?? process.cwd();
    const dir = this.sessionDirectory(cwd);
    const names = await readdir(dir).catch(() => [] as string[]);
    const summaries = await Promise.all(
      names
        .filter((name) => name.endsWith('.jsonl'))
        .map(async (name): Promise<SessionSummary | undefined> => {
          const path = join(dir, name);
          const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
          const header = safeJson(text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n')));
          if (!isRecord(header) || header.type !== 'session') return undefined;
          return {
            nativeSessionId: path,
            ...(typeof header.cwd === 'string' ? { cwd: header.cwd } : {}),
            updatedAt: info.mtimeMs,
          };
        }),
    );
    return summaries
      .filter((summary): summary is SessionSummary => summary !== undefined)
      .sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
  }

  /** --session-dir, else PI_CODING_AGENT_SESSION_DIR, else <agent dir>/sessions/--<cwd with / as ->--. */
  private sessionDirectory(cwd: string): string {
    const env = this.env();
    if (this.options.sessionDir) return this.options.sessionDir;
    if (env.PI_CODING_AGENT_SESSION_DIR) return env.PI_CODING_AGENT_SESSION_DIR;
    const agentDir = env.PI_CODING_AGENT_DIR ?? join(env.HOME ?? homedir(), '.pi', 'agent');
    return join(agentDir, 'sessions', `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`);
  }

  async history(nativeSessionId: string, options: { cwd?: string } = {}): Promise<Item[]> {
    if (!isAbsolute(nativeSessionId) || !existsSync(nativeSessionId)) {
      throw new ReinsError('resume_failed', `No Pi session file at ${nativeSessionId}.`, {
        harness: 'pi',
        operation: 'history',
      });
    }
    const cwd = options.cwd ?? process.cwd();
    return this.query({ cwd, resume: { nativeSessionId } }, async (channel) => {
      const response = await channel.request({ type: 'get_messages' });
      const messages = isRecord(response.data) && Array.isArray(response.data.messages) ? response.data.messages : [];
      return piMessagesToItems(messages as PiMessage[]);
    });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function createPiHarness(options: PiHarnessOptions = {}): Harness {
  return new PiHarness(options);
}
