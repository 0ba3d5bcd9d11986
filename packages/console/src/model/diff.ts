// Readable diffs of a file-change tool call. The item's `changes[].diff` is the harness's own diff
// (Codex: a unified diff for an update, the new content for an add); where a harness reports the
// change without one (Claude Code's Write and Edit, 2.1.x), the diff is read from what the tool was
// asked to write (its input), and says so (`source`), never guessed from anything else.
import { type CheckpointChange, type FileChange, isRecord, type ToolCallItem } from '@reins/core';

export interface DiffLine {
  type: 'add' | 'del' | 'ctx' | 'hunk';
  text: string;
  /** Line number in the old file (del, ctx) and the new one (add, ctx), where the diff says. */
  oldNo?: number;
  newNo?: number;
}

export interface FileDiff {
  path: string;
  kind: FileChange['kind'];
  movePath?: string;
  lines: DiffLine[];
  added: number;
  removed: number;
  /** diff: the harness's diff; content: the file content it wrote; edit: the text it replaced; none: no text known. */
  source: 'diff' | 'content' | 'edit' | 'none';
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** A unified diff as lines; file headers (---, +++, diff, index) are left out. */
export function parseUnifiedDiff(text: string): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  for (const raw of splitLines(text)) {
    const hunk = HUNK.exec(raw);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      lines.push({ type: 'hunk', text: raw });
    } else if (/^(---|\+\+\+|diff |index |new file mode|deleted file mode|similarity |rename )/.test(raw)) {
      // file headers: the card shows the path already
    } else if (raw.startsWith('+')) {
      lines.push({ type: 'add', text: raw.slice(1), newNo: newNo++ });
    } else if (raw.startsWith('-')) {
      lines.push({ type: 'del', text: raw.slice(1), oldNo: oldNo++ });
    } else if (raw.startsWith('\\')) {
      // "\ No newline at end of file"
    } else {
      lines.push({ type: 'ctx', text: raw.startsWith(' ') ? raw.slice(1) : raw, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return lines;
}

/** Every file the tool call changed (or was asked to change), each with readable lines. */
export function fileDiffs(item: ToolCallItem): FileDiff[] {
  const input = isRecord(item.input) ? item.input : {};
  const changes = item.changes ?? [];
  if (changes.length > 0) {
    return changes.map((change) => {
      if (change.diff) return finish(change, linesOfDiff(change), 'diff');
      const fromInput = fromToolInput(input, change.path);
      return fromInput ? finish(change, fromInput.lines, fromInput.source) : finish(change, [], 'none');
    });
  }
  if (item.tool.kind !== 'file_change') return [];
  const path = stringField(input, 'file_path') ?? stringField(input, 'path') ?? stringField(input, 'notebook_path');
  if (!path) return [];
  const fromInput = fromToolInput(input, path);
  const kind: FileChange['kind'] = fromInput?.source === 'content' ? 'add' : 'update';
  return [finish({ path, kind }, fromInput?.lines ?? [], fromInput?.source ?? 'none')];
}

const CHECKPOINT_KIND: Record<CheckpointChange['kind'], FileChange['kind']> = {
  added: 'add',
  modified: 'update',
  deleted: 'delete',
  renamed: 'move',
};

/** A checkpoint's measured changes (git's unified diffs) as readable file diffs; a rename shows old → new. */
export function checkpointDiffs(changes: readonly CheckpointChange[]): FileDiff[] {
  return changes.map((change) => {
    const renamed = change.previousPath !== undefined ? { movePath: change.path } : {};
    const path = change.previousPath ?? change.path;
    const lines = change.diff ? parseUnifiedDiff(change.diff) : [];
    return finish({ path, kind: CHECKPOINT_KIND[change.kind], ...renamed }, lines, change.diff ? 'diff' : 'none');
  });
}

function linesOfDiff(change: FileChange): DiffLine[] {
  const diff = change.diff ?? '';
  if (/^@@ /m.test(diff)) return parseUnifiedDiff(diff);
  // Codex gives an added file's content (and a deleted one's) as the diff, without markers.
  const type = change.kind === 'delete' ? 'del' : 'add';
  return splitLines(diff).map((text, index) =>
    type === 'add' ? { type, text, newNo: index + 1 } : { type, text, oldNo: index + 1 },
  );
}

/** Claude Code's Write (content), Edit (old_string/new_string) and MultiEdit (edits), 2.1.x. */
function fromToolInput(
  input: Record<string, unknown>,
  path: string,
): { lines: DiffLine[]; source: 'content' | 'edit' } | undefined {
  const target = stringField(input, 'file_path') ?? stringField(input, 'path');
  if (target !== undefined && target !== path) return undefined;
  const content = stringField(input, 'content');
  if (content !== undefined) {
    return {
      lines: splitLines(content).map((text, index) => ({ type: 'add', text, newNo: index + 1 })),
      source: 'content',
    };
  }
  const edits = Array.isArray(input.edits) ? input.edits.filter(isRecord) : [input];
  const lines: DiffLine[] = [];
  for (const edit of edits) {
    const before = stringField(edit, 'old_string');
    const after = stringField(edit, 'new_string');
    if (before === undefined || after === undefined) continue;
    if (lines.length > 0) lines.push({ type: 'hunk', text: '…' });
    for (const text of splitLines(before)) lines.push({ type: 'del', text });
    for (const text of splitLines(after)) lines.push({ type: 'add', text });
  }
  return lines.length > 0 ? { lines, source: 'edit' } : undefined;
}

function finish(change: FileChange, lines: DiffLine[], source: FileDiff['source']): FileDiff {
  return {
    path: change.path,
    kind: change.kind,
    ...(change.movePath ? { movePath: change.movePath } : {}),
    lines,
    added: lines.filter((line) => line.type === 'add').length,
    removed: lines.filter((line) => line.type === 'del').length,
    source,
  };
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}
