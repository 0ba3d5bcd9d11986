// The machine description stored with every result: the figures mean little without it.
import { readFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';

/** The version in node_modules/<name>/package.json under `dir` (read directly: exports may hide it). */
function packageVersion(name, dir) {
  try {
    return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

export async function machine(benchDir) {
  const { harnessBinary } = await import('@reins/testkit');
  const cli = {};
  for (const id of ['claude-code', 'codex', 'claude-agent-acp', 'pi']) {
    try {
      cli[id] = harnessBinary(id).version;
    } catch {
      cli[id] = null;
    }
  }
  const cpuList = cpus();
  return {
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model ?? null,
    memoryMB: Math.round(totalmem() / 2 ** 20),
    freeMemoryMB: Math.round(freemem() / 2 ** 20),
    loadAverageAtStart: loadavg().map((value) => Number(value.toFixed(2))),
    platform: `${process.platform} ${release()} ${process.arch}`,
    node: process.version,
    cli,
    packages: {
      '@anthropic-ai/claude-agent-sdk': packageVersion('@anthropic-ai/claude-agent-sdk', join(benchDir, '..')),
      '@openai/codex-sdk': packageVersion('@openai/codex-sdk', benchDir),
    },
  };
}
