// Binary specs for ACP agents: the names each is installed under and how its version reads.
// The generic `acp` harness derives its spec from the command it is given.
import { basename } from 'node:path';
import type { HarnessId } from '@reins/core';
import { type BinarySpec, launchCommand, type VersionProber } from '../runtime/index.js';
import { AcpConnection } from './connection.js';

export function binarySpec(id: HarnessId, names: string[], extra: Partial<BinarySpec> = {}): BinarySpec {
  return { id, names, ...extra };
}

/** The spec for an arbitrary ACP command: found under its own name (or used as given when absolute). */
export function commandSpec(command: string): BinarySpec {
  return { id: 'acp', names: [basename(command)] };
}

/**
 * The version from the agent's own `initialize` answer (`agentInfo.version`), for agents that refuse
 * `--version` (codex-acp 0.16.0 exits 2 "unexpected argument '--version'"). Spawns the agent, initializes
 * (no session, no authentication) and closes it; a failure says why, like a failed --version probe.
 */
export const initializeVersionProbe: VersionProber = async (path, spec, env, timeoutMs) => {
  const launch = launchCommand(path);
  const label = `${basename(path)} (ACP initialize)`;
  let connection: AcpConnection | undefined;
  try {
    connection = await AcpConnection.open(
      { harness: spec.id, command: launch.command, args: launch.args, cwd: process.cwd(), env, label },
      { requestTimeoutMs: timeoutMs },
    );
    const version = connection.initializeResponse?.agentInfo?.version;
    return { answered: true, ...(version ? { version } : {}) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { answered: false, error: `\`${label}\` did not answer: ${message}` };
  } finally {
    await connection?.close();
  }
};
