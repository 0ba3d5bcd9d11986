// The machine description stored with every result: the figures mean little without it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';

const require = createRequire(import.meta.url);

function packageVersion(name, from) {
  try {
    const path = require.resolve(`${name}/package.json`, { paths: [from] });
    return JSON.parse(readFileSync(path, 'utf8')).version;
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
      '@anthropic-ai/claude-agent-sdk': packageVersion('@anthropic-ai/claude-agent-sdk', benchDir),
      '@openai/codex-sdk': packageVersion('@openai/codex-sdk', benchDir),
    },
  };
}
