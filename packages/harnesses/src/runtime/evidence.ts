// The local evidence store: one JSON line per check result, in $REINS_HOME/evidence.jsonl (default
// ~/.reins/). It is what turns a capability's `observed` layer on, for the exact binary (sha256) that
// was checked. JSONL with O_APPEND because records are small and written by several processes at once
// (conformance workers, the CLI): each record goes out in one write, and a reader skips a line torn by a
// crash (reported, never fatal). Core `Evidence` has no harness id, so each line adds `harness`: without
// it a passing check of one harness would count as a tested version of another.
import { mkdir, open, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  type AdvertisedCapabilities,
  type Assert,
  type BinaryFingerprint,
  type CapabilityMatrix,
  computeCapabilities,
  type Discovery,
  type Equals,
  type Evidence,
  EvidenceSchema,
  type HarnessId,
  HarnessIdSchema,
  type ImplementedCapabilities,
  ReinsError,
} from '@reins/core';

export interface StoredEvidence extends Evidence {
  harness: HarnessId;
}
export const StoredEvidenceSchema = EvidenceSchema.extend({ harness: HarnessIdSchema });
type _StoredInSync = Assert<Equals<ReturnType<typeof StoredEvidenceSchema.parse>, StoredEvidence>>;

export const EVIDENCE_FILE = 'evidence.jsonl';

/** Reins' own state folder: $REINS_HOME, else ~/.reins. */
export function reinsHome(env: Record<string, string | undefined> = process.env): string {
  return env.REINS_HOME || join(env.HOME || homedir(), '.reins');
}

/** A line that could not be read, with its 1-based number. */
export interface SkippedLine {
  line: number;
  reason: string;
}

export interface EvidenceRead {
  path: string;
  records: StoredEvidence[];
  skipped: SkippedLine[];
}

export class EvidenceStore {
  constructor(readonly path: string) {}

  /** The store under $REINS_HOME (or ~/.reins) of this environment. */
  static forEnv(env: Record<string, string | undefined> = process.env): EvidenceStore {
    return new EvidenceStore(join(reinsHome(env), EVIDENCE_FILE));
  }

  /** Appends records in one write; invalid records are refused (invalid_input), nothing is written. */
  async append(input: StoredEvidence | readonly StoredEvidence[]): Promise<void> {
    const records = Array.isArray(input) ? input : [input as StoredEvidence];
    const lines = records.map((record, index) => {
      const parsed = StoredEvidenceSchema.safeParse(record);
      if (!parsed.success) {
        throw new ReinsError(
          'invalid_input',
          `Evidence record ${index + 1} is not valid: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}.`,
          { operation: 'evidence.append' },
        );
      }
      return JSON.stringify(parsed.data);
    });
    if (lines.length === 0) return;
    await mkdir(dirname(this.path), { recursive: true });
    const handle = await open(this.path, 'a+');
    try {
      // A writer that died mid-line leaves no newline at the end: start on a fresh line so only the
      // torn record is lost, not ours too.
      const { size } = await handle.stat();
      let prefix = '';
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) prefix = '\n';
      }
      const data = Buffer.from(`${prefix}${lines.join('\n')}\n`, 'utf8');
      let offset = 0;
      while (offset < data.length) {
        const { bytesWritten } = await handle.write(data, offset, data.length - offset);
        offset += bytesWritten;
      }
    } finally {
      await handle.close();
    }
  }

  /** Every readable record; unreadable lines are listed in `skipped`. A missing file is an empty store. */
  async read(): Promise<EvidenceRead> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path: this.path, records: [], skipped: [] };
      throw error;
    }
    const records: StoredEvidence[] = [];
    const skipped: SkippedLine[] = [];
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      if (line.trim() === '') return;
      const torn = index === lines.length - 1; // no newline after it: a write that did not finish
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        skipped.push({ line: index + 1, reason: torn ? 'torn last line (no newline)' : 'not JSON' });
        return;
      }
      const parsed = StoredEvidenceSchema.safeParse(value);
      if (parsed.success) records.push(parsed.data);
      else {
        const first = parsed.error.issues[0];
        skipped.push({
          line: index + 1,
          reason: `not an evidence record (${first ? `${first.path.join('.') || 'record'}: ${first.message}` : 'invalid'})`,
        });
      }
    });
    return { path: this.path, records, skipped };
  }
}

export interface CapabilitiesForInput {
  harness: HarnessId;
  implemented: ImplementedCapabilities;
  advertised?: AdvertisedCapabilities;
  /** The binary in use; without one nothing is observed. */
  binary?: BinaryFingerprint;
  /** Default: the store of process.env ($REINS_HOME or ~/.reins). */
  store?: EvidenceStore;
  /** Told about unreadable lines (they are skipped either way). */
  onSkipped?: (skipped: SkippedLine[], path: string) => void;
}

/**
 * The three-layer capability matrix of a harness: `observed` only from evidence for this binary's sha256
 * (a new binary starts with nothing observed), `testedVersions` from passing evidence of this harness.
 */
export async function capabilitiesFor(input: CapabilitiesForInput): Promise<CapabilityMatrix> {
  const store = input.store ?? EvidenceStore.forEnv();
  const { records, skipped, path } = await store.read();
  if (skipped.length > 0) input.onSkipped?.(skipped, path);
  const evidence: Evidence[] = records
    .filter((record) => record.harness === input.harness)
    .map(({ harness: _harness, ...record }) => record);
  return computeCapabilities({
    implemented: input.implemented,
    evidence,
    ...(input.advertised ? { advertised: input.advertised } : {}),
    ...(input.binary ? { binary: input.binary } : {}),
  });
}

/** The matrix for whatever binary discovery finds now (a new binary starts with nothing observed). */
export async function capabilitiesOfDiscovered(
  harness: HarnessId,
  implemented: ImplementedCapabilities,
  discovery: Discovery,
): Promise<CapabilityMatrix> {
  return capabilitiesFor({ harness, implemented, ...(discovery.found ? { binary: discovery.binary } : {}) });
}
