// Sign-in ceremonies the daemon runs for its clients: at most one per harness at a time, each
// started by the harness's own login (Harness.auth.login: `claude auth login`, Codex
// `account/login/start`, ACP `authenticate`). While one runs, a server-side watch re-probes the
// harness's own status until the sign-in lands, the harness says the ceremony ended, it is
// cancelled, or it times out; every change of a harness's sign-in state goes to every client as
// harness/authChanged. Reins never reads or copies a credential: it only runs the harness's check.
import { randomUUID } from 'node:crypto';
import { type AuthProbe, type HarnessAuth, type HarnessId, type LoginCeremony, ReinsError } from '@reins/core';
import type { AuthCeremonyInfo, HarnessAuthChangedParams } from '@reins/protocol';
import type { Logger } from './logger.js';

export interface CeremonyOptions {
  log: Logger;
  /** Sends harness/authChanged to every client. */
  changed(params: HarnessAuthChangedParams): void;
  /** How often the watch re-probes (ms, default 2 000). */
  pollMs?: number;
  /** A ceremony not finished in this long is cancelled (ms, default 10 min). */
  timeoutMs?: number;
}

interface Running {
  id: string;
  harness: HarnessId;
  info: AuthCeremonyInfo;
  ceremony: LoginCeremony;
  auth: HarnessAuth;
  timers: Array<ReturnType<typeof setTimeout>>;
  ended: boolean;
  /** Ends the ceremony once (cancelling the harness's when asked), probes once more, and forgets it. */
  end(reason: string, cancel: boolean): Promise<void>;
}

export class AuthCeremonies {
  private readonly byId = new Map<string, Running>();
  private readonly byHarness = new Map<HarnessId, Running>();
  /** The last state each harness was seen in, so a change (and only a change) is pushed. */
  private readonly lastSeen = new Map<HarnessId, AuthProbe['status']>();

  constructor(private readonly options: CeremonyOptions) {}

  ceremonyOf(harness: HarnessId): string | undefined {
    return this.byHarness.get(harness)?.id;
  }

  /** Records a probe's answer; pushes harness/authChanged when it differs from the last one seen. */
  observed(harness: HarnessId, probe: AuthProbe): void {
    const before = this.lastSeen.get(harness);
    this.lastSeen.set(harness, probe.status);
    if (before !== undefined && before !== probe.status) {
      this.options.changed({
        harness,
        status: probe.status,
        ...(probe.account !== undefined ? { account: probe.account } : {}),
      });
    }
  }

  async start(harness: HarnessId, auth: HarnessAuth, method: string | undefined): Promise<AuthCeremonyInfo> {
    const existing = this.byHarness.get(harness);
    if (existing) {
      // One ceremony per harness: a second login joins it (the user may have lost the URL).
      return existing.info;
    }
    if (!auth.login) {
      throw new ReinsError(
        'unsupported_capability',
        `Reins cannot run the ${harness} sign-in itself${auth.command ? `: run \`${auth.command}\` in a terminal` : ''}.`,
        { harness, operation: 'login', ...(auth.command ? { data: { command: auth.command } } : {}) },
      );
    }
    // The state before, so that the sign-in landing is a change even if nobody probed before.
    if (!this.lastSeen.has(harness)) {
      const before = await auth.status().catch(() => undefined);
      if (before) this.lastSeen.set(harness, before.status);
    }
    const ceremony = await auth.login(method !== undefined ? { method } : {});
    const id = randomUUID();
    const info: AuthCeremonyInfo = {
      ceremonyId: id,
      ...(ceremony.url !== undefined ? { url: ceremony.url } : {}),
      ...(ceremony.userCode !== undefined ? { userCode: ceremony.userCode } : {}),
      instructions: ceremony.instructions,
    };
    const running: Running = {
      id,
      harness,
      info,
      ceremony,
      auth,
      timers: [],
      ended: false,
      end: async () => {},
    };
    this.byId.set(id, running);
    this.byHarness.set(harness, running);
    this.options.log.info('sign-in started', { harness, ceremonyId: id });
    const end = async (reason: string, cancel: boolean) => {
      if (running.ended) return;
      running.ended = true;
      for (const timer of running.timers) clearTimeout(timer);
      this.byId.delete(id);
      if (this.byHarness.get(harness) === running) this.byHarness.delete(harness);
      if (cancel) await ceremony.cancel().catch(() => {});
      // One last look: the state the harness is in now is what clients should see.
      await this.probe(running);
      this.options.log.info('sign-in ended', { harness, ceremonyId: id, reason });
    };
    running.end = end;
    ceremony.completed.then(
      (outcome) => void end(outcome.ok ? 'completed' : 'failed', false),
      () => void end('failed', false),
    );
    const poll = () => {
      if (running.ended) return;
      void this.probe(running).then((status) => {
        if (status === 'signed_in') void end('signed_in', true);
        else if (!running.ended) running.timers.push(setTimeout(poll, this.options.pollMs ?? 2_000));
      });
    };
    running.timers.push(setTimeout(poll, this.options.pollMs ?? 2_000));
    running.timers.push(setTimeout(() => void end('timeout', true), this.options.timeoutMs ?? 10 * 60_000));
    for (const timer of running.timers) timer.unref?.();
    return info;
  }

  async cancel(ceremonyId: string): Promise<void> {
    const running = this.byId.get(ceremonyId);
    if (!running) {
      throw new ReinsError(
        'invalid_input',
        `No sign-in ${ceremonyId} is in progress (it ended, or it was never started here).`,
        { data: { ceremonyId } },
      );
    }
    await running.end('cancelled', true);
  }

  /** Cancels every ceremony (daemon shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.byId.keys()].map((id) => this.cancel(id).catch(() => {})));
  }

  private async probe(running: Running): Promise<AuthProbe['status'] | undefined> {
    try {
      const probe = await running.auth.status();
      this.observed(running.harness, probe);
      return probe.status;
    } catch {
      return undefined;
    }
  }
}
