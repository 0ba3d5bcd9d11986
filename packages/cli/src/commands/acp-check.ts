// `reins acp-check -- <agent command...>`: Reins' own ACP conformance kit run against any ACP agent over
// stdio; prints the requirement table and the verdict, and writes the JSON report when asked.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { renderAcpCheckReport, runAcpCheck, stdioAgent } from '@reins/bridges';
import { parseFlags } from '../args.js';
import { type CliIo, EXIT, UsageError } from '../io.js';

export const ACP_CHECK_HELP = `Usage: reins acp-check [--protocol 1|2] [--json <file>] [--timeout <s>] [--cancel-prompt <text>]
                        -- <agent command...>

Runs an ACP agent over stdin/stdout and drives it through named requirements in tiers: MANDATORY
(initialize and version negotiation, session/new, a prompt turn, cancel, unknown method, stdio framing,
every message valid against the ACP JSON schema the pinned SDK ships, tool calls and messages updated by
id, v2: running before idle around every prompt), CAPABILITY (session/load or resume with replay,
set_mode, set_config_option when advertised; an error for a method NOT advertised) and ADVISORY (_meta
passthrough, tool calls final by their turn's end, the v2 prompt ack). The agent answers real prompts:
point it at a model it can reach. Verdict: NOT CONFORMANT if a MANDATORY requirement fails.

Options:
      --protocol <1|2>   the ACP version to ask for (default 1; 2 is the draft v2)
      --json <file>      also write the report as JSON to this file
      --timeout <s>      deadline of each request and turn, in seconds (default 60)
      --cwd <dir>        the sessions' working directory (default: the current one)
      --cancel-prompt <text>  the prompt the cancel races (default "Count slowly from 1 to 100.")
  -h, --help             this help

Exit codes: 0 CONFORMANT, 1 NOT CONFORMANT, 2 bad usage.

Example:
  reins acp-check --protocol 2 --json report.json -- reins bridge acp -H claude-code`;

export async function acpCheckCommand(argv: string[], io: CliIo): Promise<number> {
  const end = argv.indexOf('--');
  const command = end === -1 ? [] : argv.slice(end + 1);
  const { values, positionals } = parseFlags({
    args: end === -1 ? argv : argv.slice(0, end),
    options: {
      protocol: { type: 'string' },
      json: { type: 'string' },
      timeout: { type: 'string' },
      cwd: { type: 'string' },
      'cancel-prompt': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    io.stdout.write(`${ACP_CHECK_HELP}\n`);
    return EXIT.completed;
  }
  if (positionals.length > 0 || command.length === 0) {
    throw new UsageError(
      'acp-check needs the agent command after "--".',
      'For example: reins acp-check -- npx @agentclientprotocol/claude-agent-acp',
    );
  }
  const protocol = values.protocol ?? '1';
  if (protocol !== '1' && protocol !== '2') {
    throw new UsageError(`--protocol takes 1 or 2 (got "${protocol}").`, 'ACP v2 is the draft 2.0.0-alpha.');
  }
  const seconds = Number(values.timeout ?? '60');
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`--timeout takes a number of seconds above 0 (got "${values.timeout}").`);
  }
  const cwd = resolve(values.cwd ?? process.cwd());
  const report = await runAcpCheck({
    start: () => stdioAgent({ command, cwd, stderr: (chunk) => io.stderr.write(chunk) }),
    command,
    protocol: protocol === '2' ? 2 : 1,
    cwd,
    timeoutMs: seconds * 1000,
    cancelPrompt: values['cancel-prompt'],
  });
  io.stdout.write(`${renderAcpCheckReport(report)}\n`);
  if (values.json) await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
  return report.verdict === 'CONFORMANT' ? EXIT.completed : EXIT.failed;
}
