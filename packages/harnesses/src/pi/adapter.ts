// The Pi adapter: the Harness object (discovery, capabilities, models, session list, history) and
// the launch of one `pi --mode rpc` process per Reins session (session.ts runs it on the chassis).
//
// Decisions (Pi 0.73.1):
// - nativeSessionId is the absolute path of Pi's session file (get_state `sessionFile`). Resume
//   passes it to `--session`; a fork (spec.resume.fork) to `--fork`, which copies the file's
//   conversation into a NEW session file (0.73.1; RPC mode also has `clone`, which forks the
//   session a running process already has open, so it is not needed to fork by path). A path, not the session id, because Pi resolves an id it finds under
//   another project by asking "Fork this session into current directory?" on stdin (which would eat
//   the first RPC line) and because Pi silently starts a NEW session when `--session` names a file
//   that does not exist: Reins checks the file first and fails with resume_failed instead.
// - queue: Reins keeps the queue and sends each queued input as its own `prompt` after the current
//   turn has ended. Pi's own `follow_up` is not used for it: Pi runs follow-ups inside the SAME agent
//   run (no agent_end between them) and leaves them queued after an error or abort, to be merged into
//   the next prompt, so it cannot give one Reins turn per input.
// - steer: Pi's native `steer` command (delivered before the next model call of the running turn).
// - turn end: see translate.ts (agent_end + a get_state barrier, retries reopen the turn).
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import {
  type CapabilityMatrix,
  type Discovery,
  type Harness,
  type Health,
  type Item,
  isRecord,
  type ModelInfo,
  ReinsError,
  type Session,
  type SessionSpec,
  type SessionSummary,
} from '@reins/core';
import { acceptSessionSpec, HarnessBinary, type SpecSupport } from '../runtime/chassis/index.js';
import { HarnessProcess } from '../runtime/child-process.js';
import { workspaceConfinement } from '../runtime/confinement.js';
import { capabilitiesOfDiscovered } from '../runtime/evidence.js';
import type { HarnessOptions } from '../runtime/options.js';
import { PI_IMPLEMENTED } from './capabilities.js';
import { PiCommandChannel } from './commands.js';
import { PI_BINARY, PI_INSTALL } from './discovery.js';
import {
  DEFAULT_PI_TIMEOUT_MS,
  type PiLaunch,
  PiSession,
  piModelName,
  piThinkingLevel,
  splitPiModel,
} from './session.js';
import { piMessagesToItems } from './translate.js';
import { type PiMessage, type PiModel, PiResponseSchema, type PiSessionState } from './wire.js';

export { splitPiModel };

export interface PiHarnessOptions extends HarnessOptions {
  /** Passed as `--session-dir`; default Pi's own (~/.pi/agent/sessions/--<cwd>--). */
  sessionDir?: string;
}

/** What Pi 0.73.1 honours of the session spec (launch flags: see piLaunchArgs). */
export const PI_SPEC_SUPPORT: SpecSupport = {
  model: true,
  effort: true,
  resume: true,
  // Pi has no permission system (its tools always run) and no sandbox: workspace is Reins' confinement.
  postures: ['bypass', 'workspace'],
  ephemeral: true, // --no-session
  allowedTools: true, // --tools
  systemPrompt: true, // --append-system-prompt
  mcpServers: false, // Pi has no MCP support
  fork: true, // --fork <file>
};

/** Launch arguments for one session (without the binary's own). */
export function piLaunchArgs(spec: SessionSpec, options: PiHarnessOptions): string[] {
  const args = ['--mode', 'rpc'];
  if (options.sessionDir) args.push('--session-dir', options.sessionDir);
  if (spec.resume) args.push(spec.resume.fork ? '--fork' : '--session', spec.resume.nativeSessionId);
  else if (spec.ephemeral) args.push('--no-session');
  if (spec.model) args.push('--model', spec.model);
  if (spec.effort) args.push('--thinking', piThinkingLevel(spec.effort));
  if (spec.systemPrompt?.append) args.push('--append-system-prompt', spec.systemPrompt.append);
  if (spec.allowedTools) args.push('--tools', spec.allowedTools.join(','));
  args.push(...(options.extraArgs ?? []));
  return args;
}

// ---- the Harness object ----
class PiHarness implements Harness {
  readonly id = 'pi' as const;
  readonly displayName = 'Pi';
  private readonly binary: HarnessBinary;

  constructor(private readonly options: PiHarnessOptions) {
    this.binary = new HarnessBinary(PI_BINARY, options, PI_INSTALL);
  }

  private env(additions?: Record<string, string>): Record<string, string> {
    return this.binary.env(additions);
  }

  discover(): Promise<Discovery> {
    return this.binary.discover();
  }

  /** Pi authenticates per provider at the first prompt; there is no status command to ask first. */
  health(): Promise<Health> {
    return this.binary.health();
  }

  async capabilities(): Promise<CapabilityMatrix> {
    return capabilitiesOfDiscovered('pi', PI_IMPLEMENTED, await this.discover());
  }

  private async launch(spec: SessionSpec): Promise<PiLaunch> {
    const binary = await this.binary.resolve();
    const env = this.env(spec.env);
    const sessionDir = this.options.sessionDir;
    const confine =
      spec.posture === 'workspace'
        ? workspaceConfinement({
            harness: 'pi',
            displayName: 'Pi',
            cwd: spec.cwd,
            env,
            stateFolders: (launchEnv) => [
              ...(PI_BINARY.stateFolders?.(launchEnv) ?? []),
              ...(sessionDir ? [resolve(spec.cwd, sessionDir)] : []),
            ],
          })
        : undefined;
    return {
      command: binary.path,
      args: piLaunchArgs(spec, this.options),
      cwd: spec.cwd,
      env,
      binary,
      ...(confine ? { confine } : {}),
    };
  }

  async createSession(raw: SessionSpec): Promise<Session> {
    const spec = acceptSessionSpec(raw, PI_SPEC_SUPPORT, this);
    if (spec.resume) {
      const target = spec.resume.nativeSessionId;
      if (!isAbsolute(target) || !existsSync(target)) {
        throw new ReinsError(
          'resume_failed',
          `No Pi session file at ${target}. Pi ${spec.resume.fork ? 'forks' : 'resumes'} by the session file path that Reins reported as nativeSessionId.`,
          { harness: 'pi', operation: spec.resume.fork ? 'fork' : 'resume' },
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
      defaultTimeoutMs: this.options.requestTimeoutMs ?? DEFAULT_PI_TIMEOUT_MS,
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
      const current = piModelName((state.data as PiSessionState | undefined)?.model);
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

export { PI_IMPLEMENTED };
