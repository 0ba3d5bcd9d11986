// Proves that this process runs inside a loopback-only network namespace before a real harness CLI starts.
//
// Two checks, in an order that never sends a packet off the machine: first the interface list (anything but
// loopback means we are on an open network: stop there, without probing); only when loopback is all there is
// do we try a TCP connect to a non-loopback address, which in such a namespace fails at once with ENETUNREACH
// because no route exists. Outside a namespace that connect would send a SYN, hence the order.
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

/** TEST-NET-1 (RFC 5737): never routed anywhere, so even a misjudged probe reaches nobody. */
export const NON_LOOPBACK_PROBE_ADDRESS = '192.0.2.1';
const PROBE_PORT = 9;
const PROBE_DEADLINE_MS = 1_000;

export type ProbeOutcome = { kind: 'unreachable'; code: string } | { kind: 'reachable' } | { kind: 'timeout' };

export interface HermeticEvidence {
  /** Interface names that carry a non-internal address. */
  nonLoopbackInterfaces: string[];
  /** Absent when the probe was not run (non-loopback interfaces already decided it). */
  probe?: ProbeOutcome;
}

export interface HermeticCheckDependencies {
  listInterfaces?: () => ReturnType<typeof networkInterfaces>;
  probe?: () => Promise<ProbeOutcome>;
}

export class NotHermeticError extends Error {
  override readonly name = 'NotHermeticError';
  constructor(
    readonly reason: string,
    readonly evidence: HermeticEvidence,
  ) {
    super(
      `Not inside a loopback-only network namespace: ${reason}. Real harness CLIs may only run hermetically; ` +
        'start the run through `node packages/testkit/bin/hermetic.mjs -- <command>` (npm run test:real does).',
    );
  }
}

function nonLoopbackInterfaces(list: ReturnType<typeof networkInterfaces>): string[] {
  const names: string[] = [];
  for (const [name, addresses] of Object.entries(list)) {
    if (addresses?.some((address) => !address.internal)) names.push(name);
  }
  return names;
}

/** TCP connect to a non-loopback address; resolves with how it ended, never rejects. */
export function probeNonLoopbackConnect(
  host = NON_LOOPBACK_PROBE_ADDRESS,
  deadlineMs = PROBE_DEADLINE_MS,
): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: PROBE_PORT });
    const finish = (outcome: ProbeOutcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), deadlineMs);
    socket.once('connect', () => finish({ kind: 'reachable' }));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      finish({ kind: 'unreachable', code: error.code ?? 'unknown' }),
    );
  });
}

/** Gathers the evidence; the probe runs only when the interfaces already look hermetic. */
export async function gatherHermeticEvidence(dependencies: HermeticCheckDependencies = {}): Promise<HermeticEvidence> {
  const list = (dependencies.listInterfaces ?? networkInterfaces)();
  const evidence: HermeticEvidence = { nonLoopbackInterfaces: nonLoopbackInterfaces(list) };
  if (evidence.nonLoopbackInterfaces.length > 0) return evidence;
  evidence.probe = await (dependencies.probe ?? probeNonLoopbackConnect)();
  return evidence;
}

/** Why the evidence is not hermetic, or undefined when it is. */
export function hermeticViolation(evidence: HermeticEvidence): string | undefined {
  if (evidence.nonLoopbackInterfaces.length > 0) {
    return `non-loopback interfaces present (${evidence.nonLoopbackInterfaces.join(', ')})`;
  }
  const probe = evidence.probe;
  if (!probe) return 'the non-loopback connect probe did not run';
  if (probe.kind === 'reachable') return `a TCP connect to ${NON_LOOPBACK_PROBE_ADDRESS} succeeded`;
  if (probe.kind === 'timeout') {
    return `a TCP connect to ${NON_LOOPBACK_PROBE_ADDRESS} hung instead of failing at once (a route exists)`;
  }
  if (probe.code !== 'ENETUNREACH') {
    return `a TCP connect to ${NON_LOOPBACK_PROBE_ADDRESS} failed with ${probe.code}, not ENETUNREACH (a route exists)`;
  }
  return undefined;
}

/** Throws NotHermeticError unless this process is inside a loopback-only network namespace. */
export async function assertHermetic(dependencies: HermeticCheckDependencies = {}): Promise<HermeticEvidence> {
  const evidence = await gatherHermeticEvidence(dependencies);
  const violation = hermeticViolation(evidence);
  if (violation) throw new NotHermeticError(violation, evidence);
  return evidence;
}

export async function isHermetic(dependencies: HermeticCheckDependencies = {}): Promise<boolean> {
  return hermeticViolation(await gatherHermeticEvidence(dependencies)) === undefined;
}
