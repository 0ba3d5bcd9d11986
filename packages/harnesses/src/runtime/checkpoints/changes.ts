// The changes between two checkpoints as Reins reports them: path, kind and a bounded unified diff
// per file. The parsing of git's output is pure and kept apart from running git.
import type { ChangeKind, CheckpointChange } from '@reins/core';
import { git } from './git.js';
import { at, type WorkTree } from './snapshot.js';

/** Limits that keep a checkpoint event a reasonable size whatever the turn did. */
export interface ChangeLimits {
  /** Bytes of one file's diff; more is cut with a marker line. */
  fileDiffBytes: number;
  /** Bytes of the whole patch read from git; files past it get no diff. */
  patchBytes: number;
  /** Changes listed; more sets `truncated`. */
  changes: number;
}
export const DEFAULT_CHANGE_LIMITS: ChangeLimits = {
  fileDiffBytes: 64 * 1024,
  patchBytes: 4 * 1024 * 1024,
  changes: 2000,
};

export interface MeasuredChanges {
  changes: CheckpointChange[];
  truncated: boolean;
}

export interface NameStatus {
  kind: ChangeKind;
  path: string;
  previousPath?: string;
}

const KIND_BY_LETTER: Record<string, ChangeKind> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  T: 'modified',
  C: 'added',
};

/** Parses `git diff --name-status -z`: `M\0path\0`, `R100\0old\0new\0`. */
export function parseNameStatus(output: string): NameStatus[] {
  const fields = output.split('\0');
  const entries: NameStatus[] = [];
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++];
    if (!status) continue;
    const kind = KIND_BY_LETTER[status[0] as string] ?? 'modified';
    if (status[0] === 'R' || status[0] === 'C') {
      const previousPath = fields[i++] as string;
      const path = fields[i++] as string;
      entries.push(kind === 'renamed' ? { kind, path, previousPath } : { kind, path });
    } else {
      entries.push({ kind, path: fields[i++] as string });
    }
  }
  return entries;
}

/** Splits a multi-file patch into one chunk per file, in git's order (a content line never starts with `diff --git`). */
export function splitPatch(patch: string): string[] {
  const starts: number[] = patch.startsWith('diff --git ') ? [0] : [];
  for (let at = patch.indexOf('\ndiff --git '); at !== -1; at = patch.indexOf('\ndiff --git ', at + 1)) {
    starts.push(at + 1);
  }
  return starts.map((start, index) => patch.slice(start, starts[index + 1] ?? patch.length));
}

/** Cuts a diff at `maxBytes` (on a line end) with a marker saying how much was left out. */
export function boundDiff(diff: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(diff);
  if (bytes <= maxBytes) return diff;
  const head = Buffer.from(diff).subarray(0, maxBytes).toString('utf8');
  const cut = head.slice(0, Math.max(0, head.lastIndexOf('\n') + 1));
  return `${cut}\\ reins: diff truncated, ${bytes - Buffer.byteLength(cut)} more bytes (Session.diff has the same limit; use git diff on the checkpoint refs)\n`;
}

const DIFF_FLAGS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M'];

/** The changes from commit `from` to commit `to`, with bounded diffs. */
export async function measureChanges(
  tree: WorkTree,
  from: string,
  to: string,
  limits: ChangeLimits = DEFAULT_CHANGE_LIMITS,
): Promise<MeasuredChanges> {
  const names = await git(['diff', '--name-status', '-z', ...DIFF_FLAGS, from, to], at(tree));
  const entries = parseNameStatus(names.stdout.toString('utf8'));
  if (entries.length === 0) return { changes: [], truncated: false };
  const patch = await git(['diff', ...DIFF_FLAGS, from, to], { ...at(tree), maxOutputBytes: limits.patchBytes });
  const chunks = splitPatch(patch.stdout.toString('utf8'));
  // A capped patch's last chunk is incomplete: it is cut with the marker like any long diff.
  const changes = entries.slice(0, limits.changes).map((entry, index): CheckpointChange => {
    const chunk = chunks[index];
    if (chunk === undefined) return entry;
    const complete = !patch.capped || index < chunks.length - 1;
    const limit = complete ? limits.fileDiffBytes : Math.min(limits.fileDiffBytes, Buffer.byteLength(chunk) - 1);
    const diff = boundDiff(chunk, limit);
    return { ...entry, diff };
  });
  return { changes, truncated: entries.length > limits.changes };
}

/** The paths that differ between two commits, without rename pairing (what a restore must touch). */
export async function changedPaths(tree: WorkTree, from: string, to: string): Promise<NameStatus[]> {
  const names = await git(['diff', '--name-status', '-z', '--no-renames', from, to], at(tree));
  return parseNameStatus(names.stdout.toString('utf8'));
}
