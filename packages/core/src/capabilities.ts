// Capabilities (public keys, docs/architecture/contract.md) with three layers of evidence: the adapter implements the mapping,
// the installed harness advertises it, a live check on THIS binary observed it. Only a passing
// check for the same fingerprint turns `observed` on; a new binary starts with nothing observed.
import { z } from 'zod';
import type { Assert, Equals } from './assert.js';

export const CAPABILITY_KEYS = [
  'resume',
  'fork',
  'interrupt',
  'steer',
  'queue',
  'liveModelSwitch',
  'liveEffortSwitch',
  'tokenDeltas',
  'reasoningDeltas',
  'images',
  'structuredOutput',
  'usage',
  'cost',
  'contextWindow',
  'approvals',
  'sessionList',
  'history',
  'mcpStatus',
  'compaction',
  'subagents',
  // The `workspace` posture: the harness's own sandbox confines its tools to the cwd.
  'sandbox',
  // `Session.revert` takes the conversation back too (files go back for every harness with checkpoints).
  'revert',
] as const;
export type CapabilityKey = (typeof CAPABILITY_KEYS)[number];
export const CapabilityKeySchema = z.enum(CAPABILITY_KEYS);

/** Identifies the exact binary a claim is about. */
export interface BinaryFingerprint {
  path: string;
  version?: string;
  sha256: string;
}
export const BinaryFingerprintSchema = z.object({
  path: z.string(),
  version: z.string().optional(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export interface Evidence {
  /** The check that produced it: a conformance behaviour name, 'initialize.capabilities', ... */
  check: string;
  capability: CapabilityKey;
  passed: boolean;
  binary: BinaryFingerprint;
  harnessVersion?: string;
  reinsVersion: string;
  /** ms since epoch. */
  at: number;
  detail?: string;
}
export const EvidenceSchema = z.object({
  check: z.string(),
  capability: CapabilityKeySchema,
  passed: z.boolean(),
  binary: BinaryFingerprintSchema,
  harnessVersion: z.string().optional(),
  reinsVersion: z.string(),
  at: z.number(),
  detail: z.string().optional(),
});

export type LayerState = 'yes' | 'no' | 'unknown';
export interface CapabilityLayer {
  state: LayerState;
  /** How it is done when it is: 'native', 'emulated', 'restart', 'queue', ... */
  how?: string;
  /** Where the claim comes from: the adapter, the harness's advertisement, or evidence records. */
  source?: string;
  evidence?: Evidence[];
}
export const CapabilityLayerSchema = z.object({
  state: z.enum(['yes', 'no', 'unknown']),
  how: z.string().optional(),
  source: z.string().optional(),
  evidence: z.array(EvidenceSchema).optional(),
});

export interface Capability {
  implemented: CapabilityLayer;
  advertised: CapabilityLayer;
  observed: CapabilityLayer;
  /** Harness versions for which a passing check exists. */
  testedVersions: string[];
}
export const CapabilitySchema = z.object({
  implemented: CapabilityLayerSchema,
  advertised: CapabilityLayerSchema,
  observed: CapabilityLayerSchema,
  testedVersions: z.array(z.string()),
});

export type CapabilityMatrix = Record<CapabilityKey, Capability>;
export const CapabilityMatrixSchema = z.object(
  Object.fromEntries(CAPABILITY_KEYS.map((key) => [key, CapabilitySchema])) as Record<
    CapabilityKey,
    typeof CapabilitySchema
  >,
);

/** What an adapter declares it maps, with how (e.g. structuredOutput: 'native' | 'emulated'). */
export type ImplementedCapabilities = Partial<Record<CapabilityKey, false | true | string>>;
/** What the installed harness says about itself; absent keys are unknown. */
export type AdvertisedCapabilities = Partial<Record<CapabilityKey, boolean>>;

/**
 * Combines the three layers. `observed` counts only evidence for the given fingerprint (same sha256),
 * and the newest record for a capability wins, so a later failing check turns it off again.
 */
export function computeCapabilities(input: {
  implemented: ImplementedCapabilities;
  advertised?: AdvertisedCapabilities;
  evidence?: readonly Evidence[];
  binary?: BinaryFingerprint;
}): CapabilityMatrix {
  const evidence = input.evidence ?? [];
  const entries = CAPABILITY_KEYS.map((key): [CapabilityKey, Capability] => {
    const declared = input.implemented[key];
    const implemented: CapabilityLayer =
      declared === undefined || declared === false
        ? { state: 'no', source: 'adapter' }
        : { state: 'yes', source: 'adapter', ...(typeof declared === 'string' ? { how: declared } : {}) };
    const adv = input.advertised?.[key];
    const advertised: CapabilityLayer =
      adv === undefined ? { state: 'unknown' } : { state: adv ? 'yes' : 'no', source: 'harness' };
    const mine = evidence
      .filter((record) => record.capability === key && input.binary && record.binary.sha256 === input.binary.sha256)
      .sort((a, b) => a.at - b.at);
    const latest = mine.at(-1);
    const observed: CapabilityLayer = latest
      ? { state: latest.passed ? 'yes' : 'no', source: 'evidence', evidence: mine }
      : { state: 'unknown' };
    const testedVersions = [
      ...new Set(
        evidence
          .filter((record) => record.capability === key && record.passed && record.harnessVersion)
          .map((record) => record.harnessVersion as string),
      ),
    ].sort(compareVersions);
    return [key, { implemented, advertised, observed, testedVersions }];
  });
  return Object.fromEntries(entries) as CapabilityMatrix;
}

/** Orders dotted versions numerically where they are numbers ("0.9.0" < "0.10.0"). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/);
  const pb = b.split(/[.+-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const nx = Number(x);
    const ny = Number(y);
    const diff = Number.isNaN(nx) || Number.isNaN(ny) ? x.localeCompare(y) : nx - ny;
    if (diff !== 0) return diff;
  }
  return 0;
}

type _EvidenceInSync = Assert<Equals<z.output<typeof EvidenceSchema>, Evidence>>;
type _CapabilityInSync = Assert<Equals<z.output<typeof CapabilitySchema>, Capability>>;
