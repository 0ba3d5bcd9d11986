// docs/acp-matrix.md read back: each row's verdict and the P/F/S under each acp-check requirement's column
// ("F/P": either was measured), so the tests that measure a row fail when the matrix no longer says what they
// measure.
import { readFileSync } from 'node:fs';
import { REQUIREMENTS } from '../../src/acp-check/report.js';

const MATRIX = new URL('../../../../docs/acp-matrix.md', import.meta.url);

/** The statuses: the letters each requirement's cell allows (one, or several for "F/P"). */
export type MatrixRow = { verdict: string; statuses: Record<string, string[]> };

/** The table's header line, with markdown escapes removed. */
export function matrixHeader(): string {
  const line = readFileSync(MATRIX, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith('| Agent'));
  return (line ?? '').replace(/\\_/g, '_');
}

/** The rows by "<Agent column>|<Protocol column>". */
export function matrixRows(): Map<string, MatrixRow> {
  const lines = readFileSync(MATRIX, 'utf8').split('\n');
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim().replace(/\\_/g, '_'));
  const headerAt = lines.findIndex((line) => line.startsWith('| Agent'));
  const header = cells(lines[headerAt] ?? '');
  const rows = new Map<string, MatrixRow>();
  for (const line of lines.slice(headerAt + 2)) {
    if (!line.startsWith('|')) break;
    const row = cells(line);
    const at = (name: string) => row[header.indexOf(name)] ?? '';
    const letters = (cell: string) => (cell.split(' ')[0] ?? '').split('/');
    const statuses = Object.fromEntries(REQUIREMENTS.map((r) => [r.id, letters(at(r.id))]));
    rows.set(`${at('Agent')}|${at('Protocol')}`, { verdict: at('Verdict'), statuses });
  }
  return rows;
}

/** How a measured report differs from its matrix row: nothing when the row allows what was measured. */
export function rowDifferences(
  row: MatrixRow | undefined,
  verdict: string,
  measured: Record<string, string>,
): string[] {
  if (!row) return ['no such row in docs/acp-matrix.md'];
  const differences = row.verdict === verdict ? [] : [`verdict ${verdict}, the matrix says ${row.verdict}`];
  for (const [id, letter] of Object.entries(measured)) {
    const allowed = row.statuses[id] ?? [];
    if (!allowed.includes(letter)) differences.push(`${id} ${letter}, the matrix says ${allowed.join('/') || '-'}`);
  }
  return differences;
}
