// A tool call as a card: a command with its output (as it streams, then the harness's) and exit
// code; a file change as a readable diff; MCP and web search with what went in and came out; a
// subagent with its lane (the rows whose parentItemId is this call), still running in the
// background after its turn where the harness keeps it going.
import type { Posture, ToolCallItem } from '@reins/core';
import { type ReactNode, useState } from 'react';
import { type FileDiff, fileDiffs } from '../model/diff.js';
import { baseName } from '../model/format.js';
import { ranWithoutAsking } from '../model/rows.js';
import type { ToolRow } from '../model/transcript.js';

const KIND_LABEL: Record<string, string> = {
  command: 'Command',
  file_change: 'File change',
  mcp: 'MCP',
  web_search: 'Web search',
  subagent: 'Subagent',
  other: 'Tool',
};

/** The text a command card shows as what ran. */
export function commandLine(item: ToolCallItem): string {
  const input = item.input as Record<string, unknown> | undefined;
  const command = input && typeof input === 'object' ? input.command : undefined;
  if (typeof command === 'string') return command;
  if (Array.isArray(command)) return command.map(String).join(' ');
  return item.tool.title ?? item.tool.name;
}

function headline(item: ToolCallItem): string {
  if (item.tool.kind === 'command') return commandLine(item);
  if (item.tool.kind === 'file_change' && item.changes?.length) {
    return item.changes.map((change) => baseName(change.path)).join(', ');
  }
  return item.tool.title ?? item.tool.name;
}

export function ToolCard({
  row,
  renderLane,
  posture,
}: {
  row: ToolRow;
  renderLane: (rows: ToolRow['lane']) => ReactNode;
  posture?: Posture | undefined;
}) {
  const { item } = row;
  const kind = item.tool.kind;
  const [open, setOpen] = useState(kind !== 'other' && kind !== 'mcp');
  const output = item.output?.text ?? (row.liveOutput || undefined);
  return (
    <div className="row">
      <div className={`card tool ${kind}`} data-testid="tool-card" data-tool-kind={kind} data-status={item.status}>
        <div className="card-head">
          <button type="button" className="toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
            <span className="kind">{KIND_LABEL[kind] ?? kind}</span>
            <span className="title">{headline(item)}</span>
          </button>
          {row.background ? <span className="tool-status background">background</span> : null}
          {ranWithoutAsking(row, posture) ? (
            <span
              className="tool-status unasked"
              data-testid="ran-without-asking"
              title="You asked to approve tools, but the harness's own allow rules let this one run without asking."
            >
              not asked: harness rules
            </span>
          ) : null}
          <span className={`tool-status ${item.status}`}>{item.status}</span>
          {item.exitCode !== undefined ? (
            <span className={`tool-status ${item.exitCode === 0 ? 'exit-ok' : 'exit-bad'}`} data-testid="exit-code">
              exit {item.exitCode}
            </span>
          ) : null}
        </div>
        {open ? (
          <div className="card-body">
            {kind === 'command' ? <CommandBody item={item} output={output} /> : null}
            {kind === 'file_change' ? <DiffBody diffs={fileDiffs(item)} output={output} status={item.status} /> : null}
            {kind === 'mcp' || kind === 'web_search' || kind === 'other' ? (
              <GenericBody item={item} output={output} />
            ) : null}
            {kind === 'subagent' ? <SubagentBody row={row} output={output} renderLane={renderLane} /> : null}
          </div>
        ) : null}
        {!open && row.lane.length > 0 ? <div className="lane">{renderLane(row.lane)}</div> : null}
      </div>
    </div>
  );
}

function CommandBody({ item, output }: { item: ToolCallItem; output: string | undefined }) {
  return (
    <pre className="output mono" data-testid="command-output">
      <span className="prompt">$ {commandLine(item)}</span>
      {'\n'}
      {output ?? (item.status === 'running' ? '' : '(no output reported)')}
    </pre>
  );
}

function DiffBody({ diffs, output, status }: { diffs: FileDiff[]; output: string | undefined; status: string }) {
  if (diffs.length === 0) {
    const none =
      status === 'running' ? 'The change is being prepared…' : '(the harness reported no file change details)';
    return <pre className="output mono">{output ?? none}</pre>;
  }
  return (
    <>
      {diffs.map((diff) => (
        <FileDiffView key={`${diff.path}:${diff.kind}`} diff={diff} status={status} />
      ))}
    </>
  );
}

const DIFF_LINE_LIMIT = 400;

export function FileDiffView({ diff, status }: { diff: FileDiff; status: string }) {
  const [all, setAll] = useState(false);
  const lines = all ? diff.lines : diff.lines.slice(0, DIFF_LINE_LIMIT);
  return (
    <div className="diff-file" data-testid="file-diff" data-path={diff.path}>
      <div className="diff-head">
        <span className="badge">{diff.kind}</span>
        <span>
          {diff.path}
          {diff.movePath ? ` → ${diff.movePath}` : ''}
        </span>
        <span className="counts">
          <span className="plus">+{diff.added}</span> <span className="minus">−{diff.removed}</span>
        </span>
      </div>
      {diff.source === 'content' || diff.source === 'edit' ? (
        <div className="diff-note">
          {status === 'completed'
            ? `The ${diff.source === 'content' ? 'content the harness wrote' : 'text the harness replaced'} (it reported no diff).`
            : `What the harness asked to ${diff.source === 'content' ? 'write' : 'replace'} (${status}: not applied).`}
        </div>
      ) : null}
      {diff.source === 'none' ? (
        <div className="diff-note">The harness reported this change without its text.</div>
      ) : null}
      {lines.length > 0 ? (
        <div className="diff-wrap">
          <table className="diff">
            <tbody>
              {lines.map((line, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: diff lines are positional
                <tr key={index} className={line.type}>
                  <td className="no">{line.oldNo ?? ''}</td>
                  <td className="no">{line.newNo ?? ''}</td>
                  <td>
                    {line.type === 'add' ? '+' : line.type === 'del' ? '−' : line.type === 'hunk' ? '' : ' '}
                    {line.text}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {!all && diff.lines.length > DIFF_LINE_LIMIT ? (
        <div className="kv">
          <button type="button" className="button small" onClick={() => setAll(true)}>
            Show {diff.lines.length - DIFF_LINE_LIMIT} more lines
          </button>
        </div>
      ) : null}
    </div>
  );
}

function json(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function GenericBody({ item, output }: { item: ToolCallItem; output: string | undefined }) {
  return (
    <>
      <div className="kv">
        {item.tool.name}
        <pre>{json(item.input)}</pre>
      </div>
      {output !== undefined || item.output?.structured !== undefined ? (
        <pre className="output mono">{output ?? json(item.output?.structured)}</pre>
      ) : null}
    </>
  );
}

function SubagentBody({
  row,
  output,
  renderLane,
}: {
  row: ToolRow;
  output: string | undefined;
  renderLane: (rows: ToolRow['lane']) => ReactNode;
}) {
  const input = row.item.input as Record<string, unknown> | undefined;
  const prompt = input && typeof input.prompt === 'string' ? input.prompt : undefined;
  return (
    <>
      {prompt ? (
        <div className="kv">
          Task
          <pre>{prompt}</pre>
        </div>
      ) : null}
      <div className="lane" data-testid="subagent-lane">
        <div className="lane-label">
          Subagent{row.background ? ' · still running in the background' : ''} · {row.lane.length} event
          {row.lane.length === 1 ? '' : 's'}
        </div>
        {renderLane(row.lane)}
      </div>
      {output ? <pre className="output mono">{output}</pre> : null}
    </>
  );
}
